// Package storetest is the conformance suite for store.Store implementations, in the spirit of
// River's riverdrivertest: Run(t, newStore) exercises fold semantics, project isolation, soft
// delete, the history ledger, change-feed ordering and export/import against a fresh store per
// subtest.
package storetest
