package migrate

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// upRiver creates or upgrades River's tables (the maintenance scheduler's queue, leader and
// periodic-job state; see host/internal/jobs/maintenance) on conn, which holds the migration lock:
// hosts booting together apply them once, and a failed one applies nothing.
// River's tables live beside memhost's, in the connection's search_path.
func upRiver(ctx context.Context, conn *pgx.Conn) ([]Migration, error) {
	// A nil pool: the migrator runs only on the transaction it is given.
	migrator, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		return nil, fmt.Errorf("migrate: river migrator: %w", err)
	}
	known := map[int]bool{}
	for _, m := range migrator.AllVersions() {
		known[m.Version] = true
	}
	var done []Migration
	// One transaction per River migration, as memhost's own: a later one uses enum values an
	// earlier one adds, which Postgres refuses inside the transaction that added them.
	for {
		var step []rivermigrate.MigrateVersion
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if err := checkRiverVersions(ctx, tx, known); err != nil {
				return err
			}
			res, err := migrator.MigrateTx(ctx, tx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{MaxSteps: 1})
			if err != nil {
				return err
			}
			step = res.Versions
			return nil
		})
		if err != nil {
			return done, fmt.Errorf("river migration failed (nothing from it was applied): %w", err)
		}
		if len(step) == 0 {
			return done, nil
		}
		for _, v := range step {
			done = append(done, Migration{Version: v.Version, Name: fmt.Sprintf("river_%03d_%s", v.Version, v.Name)})
		}
	}
}

// checkRiverVersions refuses a database a newer River (so a newer memhost) has migrated.
func checkRiverVersions(ctx context.Context, tx pgx.Tx, known map[int]bool) error {
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass('river_migration') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return err // no table yet: nothing applied
	}
	// River's first versions have no line column; to_jsonb reads it where it exists.
	rows, err := tx.Query(ctx, `SELECT version FROM river_migration r WHERE coalesce(to_jsonb(r)->>'line', 'main') = 'main'`)
	if err != nil {
		return err
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return err
	}
	for _, v := range versions {
		if !known[v] {
			return fmt.Errorf("%w: it has River migration %d; upgrade memhost", ErrDatabaseNewer, v)
		}
	}
	return nil
}
