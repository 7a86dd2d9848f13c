package bench

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/daemon/migrate"
)

// freshSchema drops and recreates schema name in the database at baseURL, applies every
// migration there and returns a pool whose connections use it. Each measurement gets its own
// schema so one cannot warm or bloat another's tables and indexes. drop removes the schema
// (and its disk) when the measurement is done.
func freshSchema(ctx context.Context, baseURL, name string) (pool *pgxpool.Pool, drop func(), err error) {
	conn, err := pgx.Connect(ctx, baseURL)
	if err != nil {
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	ident := pgx.Identifier{name}.Sanitize()
	// The extension is database-wide and pinned to public (see migration 0001), so it must
	// exist before the schema-local migration runs.
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public"); err != nil {
		return nil, nil, fmt.Errorf("create extension vector: %w", err)
	}
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+ident+" CASCADE; CREATE SCHEMA "+ident); err != nil {
		return nil, nil, fmt.Errorf("create schema %s: %w", name, err)
	}
	if pool, err = openSchema(ctx, baseURL, name); err != nil {
		return nil, nil, err
	}
	drop = func() {
		pool.Close()
		c, err := pgx.Connect(context.Background(), baseURL)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+ident+" CASCADE")
	}
	return pool, drop, nil
}

// openSchema returns a pool whose connections use schema name, with every migration applied
// there (a no-op for a schema already current).
func openSchema(ctx context.Context, baseURL, name string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(withSearchPath(baseURL, name))
	if err != nil {
		return nil, fmt.Errorf("parse database URL: %w", err)
	}
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pool: %w", err)
	}
	if _, err := migrate.Up(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("migrate schema %s: %w", name, err)
	}
	return pool, nil
}

// withSearchPath makes every connection of the URL use schema first; pgx passes unknown URL
// parameters to the server as run-time settings.
func withSearchPath(base, schema string) string {
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + url.QueryEscape(schema+",public")
}
