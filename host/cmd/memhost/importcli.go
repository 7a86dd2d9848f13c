package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/project"
	"github.com/memhost/memhost/host/internal/plugins/providers"
)

func importCLICmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "import-cli [DIR]",
		Short: "Import the agent CLIs' file memory of the project in DIR (default: the current directory) as memories",
		Long: `Import what the agent CLIs remember in files: each CLI's memory folder for the project
(Claude Code's $CLAUDE_CONFIG_DIR or ~/.claude, projects/<encoded path>/memory/*.md) and the
project's instruction files (CLAUDE.md, AGENTS.md, GEMINI.md). The CLIs' provider plugins in
the plugin folders name these files. Each paragraph or list item becomes one memory, behind
the headings it sits under, with its file recorded as the source (import-cli:<path>).
Running it again adds nothing. The files are only read, never changed: memhost import-cli reads
them here and sends them to the running host (to the database directly when none answers).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := dirArg(args)
			if err != nil {
				return err
			}
			if dir, err = filepath.Abs(dir); err != nil {
				return err
			}
			key, err := projectKey(cmd, dir)
			if err != nil {
				return err
			}
			env := environ()
			sets, _ := cmd.Flags().GetStringArray("env")
			for _, kv := range sets {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return fmt.Errorf("--env %q: want NAME=VALUE", kv)
				}
				env[k] = v
			}
			req, err := importRequest(cmd, env)
			if err != nil {
				return err
			}
			req.Dirs = []string{dir}
			if id, err := project.Resolve(dir); err == nil && id.Root != dir {
				req.Dirs = append(req.Dirs, id.Root)
			}
			files := brain.ReadCLIFiles(req)
			return withBrain(cmd, key, func(b brainOps) error {
				rep := brain.ImportReport{Project: key, Files: []brain.ImportFileReport{}}
				for _, batch := range brain.SplitImport(files) {
					part, err := b.ImportCLI(cmd.Context(), batch)
					if err != nil {
						return userError(err)
					}
					rep.Files = append(rep.Files, part.Files...)
					rep.Read, rep.Added, rep.Folded, rep.Skipped = rep.Read+part.Read, rep.Added+part.Added, rep.Folded+part.Folded, rep.Skipped+part.Skipped
				}
				printImport(cmd.OutOrStdout(), rep)
				return nil
			})
		},
	}
	addProjectFlag(c)
	addTokenFlag(c)
	c.Flags().StringArray("env", nil, "NAME=VALUE: a variable of the environment the CLIs run in, over this one's (CLAUDE_CONFIG_DIR=..., say)")
	return c
}

// importRequest asks the provider plugins which files their CLIs keep, for the user whose
// environment is env. A provider that names none (one built before memhost asked) is named
// on stderr.
func importRequest(cmd *cobra.Command, env map[string]string) (brain.ImportRequest, error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return brain.ImportRequest{}, err
	}
	sup, names, stop := startProviders(cmd.Context(), cfg, "")
	defer stop()
	if len(names) == 0 {
		return brain.ImportRequest{}, fmt.Errorf("no provider plugins in %s: import-cli asks them which files their CLIs keep", strings.Join(pluginDirs(cfg), ", "))
	}
	req := brain.ImportRequest{Home: env["HOME"]}
	for _, name := range names {
		h, err := providers.Find(sup, name)
		if err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "memhost: skipping provider %s: %v\n", name, err)
			continue
		}
		info := h.Info()
		if len(info.InstructionFiles) == 0 && info.MemoryFolders == nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "memhost: provider %s names no files to import (if it was built before memhost asked for them, rebuild it)\n", info.Name)
		}
		for _, f := range info.InstructionFiles {
			if !slices.Contains(req.InstructionFiles, f) {
				req.InstructionFiles = append(req.InstructionFiles, f)
			}
		}
		if m := info.MemoryFolders; m != nil {
			dir := env[m.ConfigDirEnv]
			if dir == "" && req.Home != "" {
				dir = filepath.Join(req.Home, m.DefaultConfigDir)
			}
			req.MemoryFolders = append(req.MemoryFolders, brain.MemoryFolders{CLI: info.Name, Dir: dir, Subdir: m.Subdir, TruncateAt: m.TruncateAt})
		}
	}
	return req, nil
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
