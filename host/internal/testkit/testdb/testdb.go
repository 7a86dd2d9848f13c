package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/daemon/migrate"
)

var (
	urlOnce sync.Once
	baseURL string
	urlErr  error
)

// ClusterDir is where the shared test cluster lives when TEST_DATABASE_URL is unset.
func ClusterDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("memhost-test-pg-%d", os.Getuid()))
}

// RepoRoot finds the checkout root (the folder holding go.work) from this source file, so
// tests work from any package and the file may move within the tree.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("testdb: no go.work above " + file)
		}
		dir = parent
	}
}

// URL returns the base database URL, starting the shared test cluster if needed.
func URL(tb testing.TB) string {
	tb.Helper()
	urlOnce.Do(func() {
		if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
			baseURL = u
			return
		}
		script := filepath.Join(RepoRoot(), "scripts", "pg-cluster.sh")
		cmd := exec.Command("bash", script, "start", ClusterDir())
		cmd.Env = append(os.Environ(), "MEMHOST_PG_DB=memhost_test")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			urlErr = fmt.Errorf("start test cluster with %s: %w", script, err)
			return
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		baseURL = lines[len(lines)-1]
	})
	if urlErr != nil {
		tb.Fatalf("testdb: %v", urlErr)
	}
	return baseURL
}

// Schema creates an empty schema for this test and returns a URL whose connections use it
// (search_path = schema, public). The schema is dropped when the test ends.
func Schema(tb testing.TB) string {
	tb.Helper()
	base := URL(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatalf("testdb: connect: %v", err)
	}
	defer conn.Close(ctx)
	if err := ensureVector(ctx, conn); err != nil {
		tb.Fatalf("testdb: %v", err)
	}
	name := schemaName(tb.Name())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
		tb.Fatalf("testdb: create schema: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			tb.Errorf("testdb: connect for cleanup: %v", err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("testdb: drop schema %s: %v", name, err)
		}
	})
	return WithSearchPath(base, name)
}

// extensionLockKey serialises CREATE EXTENSION across test processes sharing one database.
const extensionLockKey = 7420099

// ensureVector creates pgvector in the database once. CREATE EXTENSION IF NOT EXISTS is not
// safe against itself: two sessions that both find it missing race on pg_extension's unique
// index ("duplicate key value violates unique constraint pg_extension_name_index"), which is
// what several test packages starting at once on a fresh cluster did. A session-level advisory
// lock makes the check and the creation one step for every process.
func ensureVector(ctx context.Context, conn *pgx.Conn) error {
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", extensionLockKey); err != nil {
		return fmt.Errorf("lock for create extension: %w", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", extensionLockKey)
	}()
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public"); err != nil {
		return fmt.Errorf("create extension: %w", err)
	}
	return nil
}

// Migrated returns a pool on a fresh schema with every migration applied.
func Migrated(tb testing.TB) (*pgxpool.Pool, string) {
	tb.Helper()
	dsn := Schema(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		tb.Fatalf("testdb: pool: %v", err)
	}
	tb.Cleanup(pool.Close)
	if _, err := migrate.Up(ctx, pool); err != nil {
		tb.Fatalf("testdb: migrate: %v", err)
	}
	return pool, dsn
}

// WithSearchPath adds search_path=schema,public to a URL; pgx passes unknown URL parameters to
// the server as run-time settings.
func WithSearchPath(base, schema string) string {
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + url.QueryEscape(schema+",public")
}

func schemaName(testName string) string {
	var b strings.Builder
	b.WriteString("t_")
	for _, r := range strings.ToLower(testName) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	return b.String() + "_" + hex.EncodeToString(suffix[:])
}
