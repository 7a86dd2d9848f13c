package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/migrations"
)

// lockKey serialises migration runs across hosts sharing one database ("memhost" in ASCII).
const lockKey = 0x6d656d686f7374

// Migration is one numbered SQL file.
type Migration struct {
	Version  int
	Name     string
	SQL      string
	Checksum string
}

// Status is a migration and whether (and when) it has been applied.
type Status struct {
	Migration
	AppliedAt *time.Time
}

// All returns the embedded migrations in version order.
func All() ([]Migration, error) {
	entries, err := fs.ReadDir(migrations.FS, migrations.Dir)
	if err != nil {
		return nil, fmt.Errorf("read embedded migrations: %w", err)
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: name must be NNNN_description.sql", name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %q and %q share version %d", prev, name, v)
		}
		seen[v] = name
		body, err := fs.ReadFile(migrations.FS, migrations.Dir+"/"+name)
		if err != nil {
			return nil, fmt.Errorf("read migration %q: %w", name, err)
		}
		sum := sha256.Sum256(body)
		out = append(out, Migration{Version: v, Name: strings.TrimSuffix(name, ".sql"), SQL: string(body), Checksum: hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

const createTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    integer PRIMARY KEY,
	name       text NOT NULL,
	checksum   text NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`

// Up applies every pending migration, memhost's then River's, and returns the ones it applied.
func Up(ctx context.Context, pool *pgxpool.Pool) ([]Migration, error) {
	all, conn, err := open(ctx, pool)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	// A session lock (not a transaction lock) so it spans the per-migration transactions.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(lockKey)); err != nil {
		return nil, fmt.Errorf("migrate: take lock: %w", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(lockKey))
	}()
	if _, err := conn.Exec(ctx, createTable); err != nil {
		return nil, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	applied, err := appliedVersions(ctx, conn.Conn())
	if err != nil {
		return nil, err
	}
	if err := checkApplied(all, applied); err != nil {
		return nil, err
	}
	if _, ok := applied[all[0].Version]; !ok {
		if err := checkVector(ctx, conn.Conn()); err != nil {
			return nil, err
		}
	}
	var done []Migration
	for _, m := range all {
		if _, ok := applied[m.Version]; ok {
			continue
		}
		err := pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`, m.Version, m.Name, m.Checksum)
			return err
		})
		if err != nil {
			return done, fmt.Errorf("migration %s failed (nothing from it was applied): %w", m.Name, err)
		}
		done = append(done, m)
	}
	river, err := upRiver(ctx, conn.Conn())
	return append(done, river...), err
}

// open reads the known migrations and acquires the connection Up and List work on; the caller
// releases it.
func open(ctx context.Context, pool *pgxpool.Pool) ([]Migration, *pgxpool.Conn, error) {
	all, err := All()
	if err != nil {
		return nil, nil, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("migrate: acquire connection: %w", err)
	}
	return all, conn, nil
}

// List reports every known migration and whether it has been applied.
func List(ctx context.Context, pool *pgxpool.Pool) ([]Status, error) {
	all, conn, err := open(ctx, pool)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, fmt.Errorf("migrate: look for schema_migrations: %w", err)
	}
	applied := map[int]appliedRow{}
	if exists {
		if applied, err = appliedVersions(ctx, conn.Conn()); err != nil {
			return nil, err
		}
	}
	out := make([]Status, 0, len(all))
	for _, m := range all {
		s := Status{Migration: m}
		if a, ok := applied[m.Version]; ok {
			at := a.at
			s.AppliedAt = &at
		}
		out = append(out, s)
	}
	return out, checkApplied(all, applied)
}

type appliedRow struct {
	name, checksum string
	at             time.Time
}

func appliedVersions(ctx context.Context, conn *pgx.Conn) (map[int]appliedRow, error) {
	rows, err := conn.Query(ctx, `SELECT version, name, checksum, applied_at FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("migrate: read schema_migrations: %w", err)
	}
	defer rows.Close()
	out := map[int]appliedRow{}
	for rows.Next() {
		var v int
		var r appliedRow
		if err := rows.Scan(&v, &r.name, &r.checksum, &r.at); err != nil {
			return nil, fmt.Errorf("migrate: scan schema_migrations: %w", err)
		}
		out[v] = r
	}
	return out, rows.Err()
}

// ErrDatabaseNewer means the database has migrations this binary does not know: it was
// upgraded by a newer memhost, and running an older one against it is refused.
var ErrDatabaseNewer = errors.New("database schema is newer than this memhost binary")

func checkApplied(all []Migration, applied map[int]appliedRow) error {
	known := map[int]Migration{}
	for _, m := range all {
		known[m.Version] = m
	}
	for v, a := range applied {
		m, ok := known[v]
		if !ok {
			return fmt.Errorf("%w: it has migration %d (%s); upgrade memhost", ErrDatabaseNewer, v, a.name)
		}
		if m.Checksum != a.checksum {
			return fmt.Errorf("migration %s was changed after it was applied (checksum %s, database has %s); migrations are forward-only: add a new one", m.Name, m.Checksum[:12], a.checksum[:12])
		}
	}
	return nil
}
