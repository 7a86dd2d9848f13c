// Package rpcerr owns how errors cross the plugin wire for every kind: a
// plugin-side implementation error becomes a gRPC status (ToStatus, Recover),
// and a status becomes a Go error wrapping the matching sentinel of
// sdk/plugin or a context error on the host side (FromStatus). A Health
// answer crosses the same way for every kind (Health on the plugin side,
// Healthy on the host side). Each kind's glue calls it, so that all kinds map
// errors the same way.
package rpcerr
