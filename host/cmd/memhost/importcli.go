package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/project"
)

func importCLICmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "import-cli [DIR]",
		Short: "Import the agent CLIs' file memory of the project in DIR (default: the current directory) as memories",
		Long: `Import what the agent CLIs remember in files: Claude Code's memory folder for the project
($CLAUDE_CONFIG_DIR or ~/.claude, projects/<encoded path>/memory/*.md) and the project's
CLAUDE.md, AGENTS.md and GEMINI.md. Each paragraph or list item becomes one memory, behind
the headings it sits under, with its file recorded as the source (import-cli:<path>).
Running it again adds nothing. The files are only read, never changed.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := os.Getwd()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				dir = args[0]
			}
			if dir, err = filepath.Abs(dir); err != nil {
				return err
			}
			key, err := projectKey(cmd, dir)
			if err != nil {
				return err
			}
			claudeDir, _ := cmd.Flags().GetString("claude-config-dir")
			req := brain.ImportRequest{Dirs: []string{dir}, ClaudeDir: claudeDir}
			if id, err := project.Resolve(dir); err == nil && id.Root != dir {
				req.Dirs = append(req.Dirs, id.Root)
			}
			if home, err := os.UserHomeDir(); err == nil {
				req.Home = home
				if req.ClaudeDir == "" {
					req.ClaudeDir = filepath.Join(home, ".claude")
				}
			}
			b, closeFn, err := openBrain(cmd)
			if err != nil {
				return err
			}
			defer closeFn()
			rep, err := b.ImportCLI(cmd.Context(), operator(key), req)
			if err != nil {
				return userError(err)
			}
			printImport(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	addProjectFlag(c)
	c.Flags().String("claude-config-dir", os.Getenv("CLAUDE_CONFIG_DIR"), "Claude Code's configuration directory (default $CLAUDE_CONFIG_DIR, else ~/.claude)")
	return c
}

func printImport(out io.Writer, rep brain.ImportReport) {
	if len(rep.Files) == 0 {
		fmt.Fprintf(out, "no CLI memory files found for %s\n", printable(rep.Project))
		return
	}
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "FILE\tREAD\tADDED\tFOLDED\tSKIPPED\tPROBLEM")
	for _, f := range rep.Files {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\n", printable(f.Path), f.Read, f.Added, f.Folded, f.Skipped, orDash(printable(f.Error)))
	}
	_ = w.Flush()
	fmt.Fprintf(out, "%s: read %d, added %d, folded %d into existing memories, skipped %d already known\n",
		printable(rep.Project), rep.Read, rep.Added, rep.Folded, rep.Skipped)
}
