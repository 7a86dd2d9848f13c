// Package migrate applies memhost's embedded SQL migrations.
//
// Migrations are forward-only, numbered, tracked in schema_migrations with a checksum, and each
// runs in its own transaction under an advisory lock, so several hosts booting against one
// database apply them exactly once. The runner is fail-closed: a failed migration, an edited
// migration that has already run, or a database newer than this binary stops boot with an error
// that says which file.
package migrate
