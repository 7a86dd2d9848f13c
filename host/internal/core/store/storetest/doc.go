// Package storetest is the conformance suite for store.Store implementations, in the spirit of
// River's riverdrivertest: Run(t, newStore) exercises the scope lock (writers serialise, an error
// rolls back, each scope has its own lock), the write primitives (exact and nearest lookups that
// stay in their scope, inserts, folds that are recorded in history), zero vectors that never
// yield NaN, project isolation, soft delete, change-feed ordering and export/import against a
// fresh store per subtest.
package storetest
