package migrate_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/daemon/migrate"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

func TestUpIsIdempotentAndTracked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.Schema(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	all, err := migrate.All()
	require.NoError(t, err)
	require.NotEmpty(t, all)

	applied, err := migrate.Up(ctx, pool)
	require.NoError(t, err)
	require.Greater(t, len(applied), len(all), "memhost's migrations, then River's")
	require.Equal(t, all[len(all)-1].Name, applied[len(all)-1].Name)
	var river bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT to_regclass('river_job') IS NOT NULL AND to_regclass('river_leader') IS NOT NULL`).Scan(&river))
	require.True(t, river, "River's tables are created by memhost's migration step")

	again, err := migrate.Up(ctx, pool)
	require.NoError(t, err)
	require.Empty(t, again, "a second run applies nothing")

	status, err := migrate.List(ctx, pool)
	require.NoError(t, err)
	for _, s := range status {
		require.NotNil(t, s.AppliedAt, s.Name)
	}
}

func TestConcurrentUpAppliesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.Schema(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	errs := make(chan error, 4)
	for range 4 {
		go func() { _, err := migrate.Up(ctx, pool); errs <- err }()
	}
	for range 4 {
		require.NoError(t, <-errs)
	}
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n))
	all, _ := migrate.All()
	require.Equal(t, len(all), n)
}

func TestNewerDatabaseAndEditedMigrationFailClosed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.Schema(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = migrate.Up(ctx, pool)
	require.NoError(t, err)

	_, err = pool.Exec(ctx, `INSERT INTO schema_migrations (version, name, checksum) VALUES (9999, '9999_future', 'x')`)
	require.NoError(t, err)
	_, err = migrate.Up(ctx, pool)
	require.ErrorIs(t, err, migrate.ErrDatabaseNewer)
	require.ErrorContains(t, err, "9999_future")

	_, err = pool.Exec(ctx, `DELETE FROM schema_migrations WHERE version = 9999; UPDATE schema_migrations SET checksum = 'deadbeefdeadbeef' WHERE version = 1`)
	require.NoError(t, err)
	_, err = migrate.Up(ctx, pool)
	require.ErrorContains(t, err, "was changed after it was applied")
}

func TestFailedMigrationLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.Schema(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	// A table the first migration wants to create already exists: the migration fails and its
	// transaction rolls back, so no half-applied schema and no schema_migrations row remain.
	_, err = pool.Exec(ctx, `CREATE TABLE memory_history (x int)`)
	require.NoError(t, err)
	_, err = migrate.Up(ctx, pool)
	require.ErrorContains(t, err, "0001_core failed")
	var memories bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT to_regclass('memories') IS NOT NULL`).Scan(&memories))
	require.False(t, memories)
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n))
	require.Zero(t, n)
}

func TestNewerRiverSchemaFailsClosed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.Schema(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = migrate.Up(ctx, pool)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO river_migration (line, version) VALUES ('main', 999)`)
	require.NoError(t, err)
	_, err = migrate.Up(ctx, pool)
	require.ErrorIs(t, err, migrate.ErrDatabaseNewer)
	require.ErrorContains(t, err, "River migration 999")
}

// A branch's migration merged after a later one was released (0014 after 0015) is applied on a
// database that already has the later one, as it is on a fresh database.
func TestUpAppliesAMigrationBelowTheNewestApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.Schema(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = migrate.Up(ctx, pool)
	require.NoError(t, err)

	// The database as main left it: 0015 applied, 0014 never.
	_, err = pool.Exec(ctx, `DROP TABLE console_sessions, console_signin_codes; DELETE FROM schema_migrations WHERE version = 14`)
	require.NoError(t, err)
	var newest int
	require.NoError(t, pool.QueryRow(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&newest))
	require.Greater(t, newest, 14)

	applied, err := migrate.Up(ctx, pool)
	require.NoError(t, err)
	require.Len(t, applied, 1)
	require.Equal(t, "0014_console_sessions", applied[0].Name)
	var tables bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT to_regclass('console_sessions') IS NOT NULL AND to_regclass('console_signin_codes') IS NOT NULL`).Scan(&tables))
	require.True(t, tables)
}
