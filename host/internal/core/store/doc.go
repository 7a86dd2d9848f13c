// Package store defines memhost's durable memory store: the domain types (memories, their
// history, the change feed) and the Store interface the rest of the host programs against.
//
// The store decides nothing about folding: in the spirit of River's riverdriver it offers a
// transaction under a per-scope write lock (WithScopeLock) and parameter structs for what may
// happen there (ScopeTx: one lookup of the exact match and of the candidates the caller chose,
// with the scope's newest rows, then one final insert or fold that commits); the fold policy,
// and the choice of candidates, live in package memory.
//
// Postgres is the only source of truth. The one implementation lives in store/pgstore; the
// conformance suite in store/storetest pins the contract (scope lock serialisation, lossless
// folds with history, project isolation, zero vectors without NaN, soft delete, change-feed
// ordering) so another implementation could be checked the same way.
package store
