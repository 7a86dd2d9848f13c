package migrate_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/daemon/migrate"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// TestUpSaysWhenTheRoleCannotCreatePgvector: a database named by URL, without the vector
// extension, owned by a role that is not a superuser (pgvector is not a trusted extension):
// Up fails before applying anything, naming the database, the role and the statement a
// superuser runs; once that is done, Up applies everything.
func TestUpSaysWhenTheRoleCannotCreatePgvector(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, testdb.URL(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close(context.Background()) })

	name := fmt.Sprintf("memhost_novector_%d", time.Now().UnixNano())
	_, err = admin.Exec(ctx, "CREATE ROLE "+name+" LOGIN")
	require.NoError(t, err)
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name+" OWNER "+name)
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		_, _ = admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+name)
	})

	cfg, err := pgxpool.ParseConfig(testdb.URL(t))
	require.NoError(t, err)
	cfg.ConnConfig.User, cfg.ConnConfig.Database = name, name
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	_, err = migrate.Up(ctx, pool)
	require.EqualError(t, err, fmt.Sprintf(`migrate: database %q lacks the vector extension and role %q may not create it; `+
		`a superuser runs once: psql -d %s -c 'CREATE EXTENSION vector WITH SCHEMA public'`, name, name, name))
	var tables int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`).Scan(&tables))
	require.Zero(t, tables, "nothing applied")

	superCfg := cfg.ConnConfig.Copy()
	superCfg.User = admin.Config().User
	super, err := pgx.ConnectConfig(ctx, superCfg)
	require.NoError(t, err)
	_, err = super.Exec(ctx, "CREATE EXTENSION vector WITH SCHEMA public")
	require.NoError(t, err)
	require.NoError(t, super.Close(ctx))

	applied, err := migrate.Up(ctx, pool)
	require.NoError(t, err)
	require.NotEmpty(t, applied)
}
