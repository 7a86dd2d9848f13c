package brain_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/memory"
)

// cliFiles lays out a project with instruction files and a Claude Code memory folder whose
// name is the project path encoded (over 200 characters: truncated plus a hash).
func cliFiles(t *testing.T, long bool) (req brain.ImportRequest, files []string) {
	t.Helper()
	home := t.TempDir()
	proj := filepath.Join(home, "src", "app")
	if long {
		proj = filepath.Join(home, "src", strings.Repeat("deep-folder/", 18), "app")
	}
	require.NoError(t, os.MkdirAll(proj, 0o755))
	claude := filepath.Join(home, ".claude")
	enc := brain.EncodeClaudeProject(proj)
	if long {
		enc = enc[:200] + "-1a2b3c"
	}
	mem := filepath.Join(claude, "projects", enc, "memory")
	require.NoError(t, os.MkdirAll(mem, 0o755))
	write := func(path, text string) {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		files = append(files, path)
	}
	write(filepath.Join(proj, "CLAUDE.md"), "# Conventions\n\n- Use pnpm, never npm.\n- Tests need TZ=UTC.\n\n## Deploy\n\nDeploys go through Argo CD.\n")
	write(filepath.Join(proj, "AGENTS.md"), "# Conventions\n\n- Use pnpm, never npm.\n- Run make lint before pushing.\n")
	write(filepath.Join(mem, "MEMORY.md"), "- [Deploys](deploys.md) — how deploys work\n")
	write(filepath.Join(mem, "deploys.md"), "---\nname: Deploys\ndescription: How deploys work\ntype: project\n---\n\nStaging deploys need VPN access.\n")
	return brain.ImportRequest{Dirs: []string{proj}, ClaudeDir: claude, Home: home}, files
}

func TestImportCLIIsIdempotentAndLeavesFilesAlone(t *testing.T) {
	t.Parallel()
	for name, long := range map[string]bool{"short path": false, "long path": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			req, files := cliFiles(t, long)
			before := map[string]os.FileInfo{}
			for _, f := range files {
				info, err := os.Stat(f)
				require.NoError(t, err)
				before[f] = info
			}

			rep, err := b.brain.ImportCLI(ctx, operatorA, req)
			require.NoError(t, err)
			require.Len(t, rep.Files, 4)
			require.Equal(t, 8, rep.Read)
			require.Equal(t, 1, rep.Skipped, "the same bullet in CLAUDE.md and AGENTS.md is one memory")
			require.Equal(t, rep.Read, rep.Added+rep.Folded+rep.Skipped)
			require.Equal(t, "~/.claude/projects/", rep.Files[0].Path[:19])

			page, err := b.mem.List(ctx, operatorA, memory.ListRequest{Limit: 100})
			require.NoError(t, err)
			require.Len(t, page.Memories, rep.Added)
			sources := map[string]bool{}
			for _, m := range page.Memories {
				require.True(t, strings.HasPrefix(m.Source, "import-cli:"), m.Source)
				sources[m.Source] = true
			}
			require.True(t, sources["import-cli:~/src/app/CLAUDE.md"] || long)

			again, err := b.brain.ImportCLI(ctx, operatorA, req)
			require.NoError(t, err)
			require.Zero(t, again.Added, "re-running adds nothing")
			require.Zero(t, again.Folded)
			require.Equal(t, again.Read, again.Skipped)
			page2, err := b.mem.List(ctx, operatorA, memory.ListRequest{Limit: 100})
			require.NoError(t, err)
			require.Len(t, page2.Memories, len(page.Memories))
			for i := range page.Memories {
				require.Equal(t, page.Memories[i].DedupedCount, page2.Memories[i].DedupedCount, "no row touched")
			}

			for _, f := range files {
				info, err := os.Stat(f)
				require.NoError(t, err)
				require.Equal(t, before[f].Size(), info.Size())
				require.True(t, before[f].ModTime().Equal(info.ModTime()), "import never edits %s", f)
			}
		})
	}
}

func TestImportCLIFindsNothingElsewhere(t *testing.T) {
	t.Parallel()
	b := setup(t)
	req, _ := cliFiles(t, false)
	// A sibling project whose encoded name starts the same is not this project's memory.
	sibling := brain.EncodeClaudeProject(req.Dirs[0]) + "-2"
	dir := filepath.Join(req.ClaudeDir, "projects", sibling, "memory")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.md"), []byte("SIBLING fact\n"), 0o644))
	rep, err := b.brain.ImportCLI(context.Background(), operatorA, req)
	require.NoError(t, err)
	for _, f := range rep.Files {
		require.NotContains(t, f.Path, sibling)
	}
}
