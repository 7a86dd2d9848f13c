// Package store defines memhost's durable memory store: the domain types (memories, their
// history, the change feed) and the Store interface the rest of the host programs against.
//
// Postgres is the only source of truth. The one implementation lives in store/pgstore; the
// conformance suite in store/storetest pins the contract (fold semantics, project isolation,
// soft delete, history, change-feed ordering) so another implementation could be checked the
// same way.
package store
