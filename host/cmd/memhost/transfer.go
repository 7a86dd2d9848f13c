package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/brain/transfer"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/project"
	"github.com/memhost/memhost/host/internal/core/redact"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/daemon/migrate"
)

func scopeFlag(cmd *cobra.Command) (store.ScopeRef, error) {
	raw, _ := cmd.Flags().GetString("project")
	global, _ := cmd.Flags().GetBool("global")
	key := strings.TrimSpace(raw)
	switch {
	case global && raw != "":
		return store.ScopeRef{}, fmt.Errorf("--project and --global are exclusive")
	case global:
		return store.Global, nil
	case raw == "":
		return store.ScopeRef{}, fmt.Errorf("--project KEY is required (or --global)")
	}
	if err := project.ValidateKey(key); err != nil {
		return store.ScopeRef{}, fmt.Errorf("--%w", err)
	}
	return store.Project(key), nil
}

// transferRunE is the RunE of export and import: run gets the scope --project or --global
// names, checked before the database is opened, and a pool on it.
func transferRunE(run func(cmd *cobra.Command, cfg *config.Config, pool *pgxpool.Pool, scope store.ScopeRef, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		scope, err := scopeFlag(cmd)
		if err != nil {
			return err
		}
		return withPool(cmd, func(cfg *config.Config, pool *pgxpool.Pool) error { return run(cmd, cfg, pool, scope, args) })
	}
}

func exportCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "export --project KEY [--out FILE]",
		Short: "Write a project's memories, with history and vectors, as JSONL",
		Args:  cobra.NoArgs,
		RunE: transferRunE(func(cmd *cobra.Command, _ *config.Config, pool *pgxpool.Pool, scope store.ScopeRef, _ []string) error {
			st := pgstore.New(pool)
			var (
				n   int
				err error
			)
			if out, _ := cmd.Flags().GetString("out"); out != "" && out != "-" {
				n, err = transfer.ExportFile(cmd.Context(), st, scope, out)
			} else {
				n, err = transfer.Export(cmd.Context(), st, scope, cmd.OutOrStdout())
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "exported %d memories\n", n)
			return nil
		}),
	}
	c.Flags().String("project", "", "project key to export")
	c.Flags().Bool("global", false, "export global memories instead of a project")
	c.Flags().String("out", "", "file to write (created when the export is complete, never overwritten); default stdout")
	return c
}

func importCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "import --project KEY FILE",
		Short: "Read an export into a project, all or nothing (idempotent: memories already present are skipped)",
		Long: `Read an export into a project. The whole file is validated first (the limits of the
write path, and every vector against its embedder's dimensions); a file with any fault imports
nothing and the error names the line and the field. Secrets are redacted as on the write path.
FILE "-" reads standard input.`,
		Args: cobra.ExactArgs(1),
		RunE: transferRunE(func(cmd *cobra.Command, cfg *config.Config, pool *pgxpool.Pool, scope store.ScopeRef, args []string) error {
			if _, err := migrate.Up(cmd.Context(), pool); err != nil {
				return err
			}
			src, err := openImport(args[0], cmd.InOrStdin())
			if err != nil {
				return err
			}
			defer src.close()
			redactor, err := redact.New()
			if err != nil {
				return fmt.Errorf("build secret redactor: %w", err)
			}
			opts := transfer.ImportOptions{MaxTextBytes: cfg.Memory.MaxTextBytes, MergedFromMax: cfg.Memory.MergedFromMax, Redactor: redactor}
			stderr := cmd.ErrOrStderr()
			if isTerminal(stderr) {
				opts.Progress = func(p transfer.Progress) { drawProgress(stderr, p) }
			}
			start := time.Now()
			res, err := transfer.Import(cmd.Context(), pgstore.New(pool), scope, src.file, opts)
			if opts.Progress != nil {
				fmt.Fprint(stderr, "\r\033[K")
			}
			if err != nil {
				return err
			}
			took := time.Since(start)
			fmt.Fprintf(cmd.OutOrStdout(), "imported %d memories, skipped %d already present (%.0f/s)\n",
				res.Inserted, res.Skipped, float64(res.Inserted+res.Skipped)/max(took.Seconds(), 1e-3))
			if res.Redactions > 0 {
				fmt.Fprintf(stderr, "redacted %d secrets in the imported records\n", res.Redactions)
			}
			return nil
		}),
	}
	c.Flags().String("project", "", "project key to import into")
	c.Flags().Bool("global", false, "import into the global scope")
	return c
}

// importSource is the file an import reads twice (validate, then load). Standard input is
// copied to a temporary file first, since it can be read only once.
type importSource struct {
	file  *os.File
	spool bool
}

func openImport(name string, stdin io.Reader) (*importSource, error) {
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		return &importSource{file: f}, nil
	}
	f, err := os.CreateTemp("", "memhost-import-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("spool standard input: %w", err)
	}
	src := &importSource{file: f, spool: true}
	if _, err := io.Copy(f, stdin); err != nil {
		src.close()
		return nil, fmt.Errorf("spool standard input: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		src.close()
		return nil, fmt.Errorf("spool standard input: %w", err)
	}
	return src, nil
}

func (s *importSource) close() {
	_ = s.file.Close()
	if s.spool {
		_ = os.Remove(s.file.Name())
	}
}

// isTerminal reports whether w is a character device (a terminal), where a progress line
// redrawn in place makes sense; pipes and files get none.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// drawProgress redraws the import's progress line in place.
func drawProgress(w io.Writer, p transfer.Progress) {
	if p.Total > 0 {
		fmt.Fprintf(w, "\r%s: %d/%d memories (%d%%)\033[K", p.Phase, p.Done, p.Total, p.Done*100/p.Total)
		return
	}
	fmt.Fprintf(w, "\r%s: %d memories\033[K", p.Phase, p.Done)
}
