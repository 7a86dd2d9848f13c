// Package storetest is the conformance suite for store.Store implementations, in the spirit of
// River's riverdrivertest: Run(t, newStore) runs one exercise per concern against a fresh store
// per subtest, each in the file named for it — write.go (inserts, folds recorded in history,
// writes that stay in their scope, rollback, zero vectors that never yield NaN), lookup.go (the
// fold's exact and nearest lookups), scopelock.go (writers serialise, each scope has its own
// lock), lifecycle.go (soft delete, pins), changefeed.go (ordering), transfer.go (export and
// import) and embedders.go (one width each). storetest.go holds the shared helpers.
package storetest
