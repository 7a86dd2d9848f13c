// Package registry records, for every plugin kind, how the SDK builds its
// go-plugin values: the host side (a client, no implementation) and the
// plugin side (a server around an implementation). Kind packages
// (sdk/embedder, ...) register from init; sdk/plugin reads the clients for
// VersionedPlugins and the kind's test harness (embeddertest) builds servers.
//
// It lives apart from sdk/plugin because kind packages import sdk/plugin, so
// sdk/plugin cannot import them, and because plugin authors have no reason to
// see a registration hook.
package registry
