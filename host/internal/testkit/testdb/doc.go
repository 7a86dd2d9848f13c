// Package testdb gives each test its own empty, migrated Postgres schema.
//
// Tests never skip for want of a database: when TEST_DATABASE_URL is unset, the first caller
// starts the repository's private test cluster (scripts/pg-cluster.sh, which also installs
// PostgreSQL 15 and pgvector when they are missing) and every test package shares it. Each
// test gets a fresh schema named after it, dropped in t.Cleanup, so tests run in parallel
// without seeing each other's rows — the River model.
package testdb
