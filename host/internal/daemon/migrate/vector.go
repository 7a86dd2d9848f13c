package migrate

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// checkVector runs before the first migration, which creates pgvector's extension, so that a
// database named by URL without it fails with what to do rather than Postgres's bare error:
// the server lacks pgvector, or the role may not create it (pgvector is not a trusted
// extension: a superuser creates it once per database).
func checkVector(ctx context.Context, conn *pgx.Conn) error {
	var installed, available, creatable bool
	var db, role string
	err := conn.QueryRow(ctx, `
SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector'),
       EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector'),
       (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
         OR (has_database_privilege(current_database(), 'CREATE') AND EXISTS (
             SELECT 1 FROM pg_available_extension_versions v JOIN pg_available_extensions a ON a.name = v.name
             WHERE v.name = 'vector' AND v.version = a.default_version AND v.trusted)),
       current_database(), current_user`).Scan(&installed, &available, &creatable, &db, &role)
	if err != nil {
		return fmt.Errorf("migrate: check for pgvector: %w", err)
	}
	switch {
	case installed:
		return nil
	case !available:
		return fmt.Errorf("migrate: database %q has no pgvector: the server does not have the vector extension installed; "+
			"install pgvector for that server's PostgreSQL (Debian/Ubuntu: postgresql-NN-pgvector, Homebrew: pgvector) "+
			"or use the private cluster (unset MEMHOST_DATABASE_URL)", db)
	case !creatable:
		return fmt.Errorf("migrate: database %q lacks the vector extension and role %q may not create it; "+
			"a superuser runs once: psql -d %s -c 'CREATE EXTENSION vector WITH SCHEMA public'", db, role, db)
	}
	return nil
}
