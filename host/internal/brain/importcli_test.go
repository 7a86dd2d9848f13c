package brain_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
)

// instructionFiles are the instruction files the repository's providers name.
var instructionFiles = []string{"CLAUDE.md", "AGENTS.md", "GEMINI.md"}

// claudeMemory is Claude Code's memory folders in dir, as its provider describes them.
func claudeMemory(dir string) brain.MemoryFolders {
	return brain.MemoryFolders{CLI: "claude", Dir: dir, Subdir: "memory", TruncateAt: 200}
}

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
	enc := brain.EncodeProjectFolder(proj)
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
	return brain.ImportRequest{Dirs: []string{proj}, InstructionFiles: instructionFiles, MemoryFolders: []brain.MemoryFolders{claudeMemory(claude)}, Home: home}, files
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

			rep, err := b.brain.ImportCLI(ctx, operatorA, brain.ReadCLIFiles(req))
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

			again, err := b.brain.ImportCLI(ctx, operatorA, brain.ReadCLIFiles(req))
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
	sibling := brain.EncodeProjectFolder(req.Dirs[0]) + "-2"
	dir := filepath.Join(req.MemoryFolders[0].Dir, "projects", sibling, "memory")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.md"), []byte("SIBLING fact\n"), 0o644))
	rep, err := b.brain.ImportCLI(context.Background(), operatorA, brain.ReadCLIFiles(req))
	require.NoError(t, err)
	for _, f := range rep.Files {
		require.NotContains(t, f.Path, sibling)
	}
}

// TestImportCLIRefusesLinksOutOfTheProject: a cloned repository's AGENTS.md linked to a private
// file of the user's, and a memory file linked to a system file, are reported and not imported;
// a link that stays inside the project is followed.
func TestImportCLIRefusesLinksOutOfTheProject(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	req, _ := cliFiles(t, false)
	proj := req.Dirs[0]
	mem := filepath.Join(req.MemoryFolders[0].Dir, "projects", brain.EncodeProjectFolder(proj), "memory")
	outside := t.TempDir()
	private := filepath.Join(outside, "private.md")
	require.NoError(t, os.WriteFile(private, []byte("PRIVATE-SENTINEL: my bank PIN notes\n"), 0o600))
	system := filepath.Join(outside, "passwd")
	require.NoError(t, os.WriteFile(system, []byte("SYSTEM-SENTINEL:x:0:0:root:/root:/bin/sh\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(proj, "AGENTS.md")))
	require.NoError(t, os.Symlink(private, filepath.Join(proj, "AGENTS.md")))
	require.NoError(t, os.Symlink(system, filepath.Join(mem, "x.md")))
	// Inside the project, a link is only another name for the project's own file.
	require.NoError(t, os.MkdirAll(filepath.Join(proj, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "docs", "agents.md"), []byte("- LINKED-SENTINEL: run make lint\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join("docs", "agents.md"), filepath.Join(proj, "GEMINI.md")))

	rep, err := b.brain.ImportCLI(ctx, operatorA, brain.ReadCLIFiles(req))
	require.NoError(t, err)
	problems := map[string]string{}
	for _, f := range rep.Files {
		problems[f.Path] = f.Error
	}
	require.Equal(t, "is a link to a file outside the project; not imported", problems["~/src/app/AGENTS.md"], rep)
	require.Equal(t, "is a link to a file outside claude's memory folder; not imported",
		problems["~/.claude/projects/"+brain.EncodeProjectFolder(proj)+"/memory/x.md"], rep)
	require.Contains(t, problems, "~/src/app/GEMINI.md")
	require.Empty(t, problems["~/src/app/GEMINI.md"])

	page, err := b.mem.List(ctx, operatorA, memory.ListRequest{Limit: 100})
	require.NoError(t, err)
	var texts []string
	for _, m := range page.Memories {
		texts = append(texts, m.Text)
	}
	all := strings.Join(texts, "\n")
	require.NotContains(t, all, "PRIVATE-SENTINEL")
	require.NotContains(t, all, "SYSTEM-SENTINEL")
	require.Contains(t, all, "LINKED-SENTINEL")
}

// TestImportCLIStoresARuleOnceWithoutItsListMarker: the same rule in CLAUDE.md and AGENTS.md,
// under different headings and list markers, is one memory, stored without the marker.
func TestImportCLIStoresARuleOnceWithoutItsListMarker(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	proj := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(proj, "CLAUDE.md"), []byte("# Conventions\n\n- Use pnpm, never npm.\n- Tests need TZ=UTC.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "AGENTS.md"), []byte("# Rules for agents\n\n* Use pnpm, never npm.\n1. Run make lint before pushing.\n"), 0o644))

	rep, err := b.brain.ImportCLI(ctx, operatorA, brain.ReadCLIFiles(brain.ImportRequest{Dirs: []string{proj}, InstructionFiles: instructionFiles}))
	require.NoError(t, err)
	require.Equal(t, 4, rep.Read)
	require.Equal(t, 1, rep.Skipped, "the rule AGENTS.md repeats")
	page, err := b.mem.List(ctx, operatorA, memory.ListRequest{Limit: 100})
	require.NoError(t, err)
	var got []string
	for _, m := range page.Memories {
		got = append(got, m.Text)
	}
	require.ElementsMatch(t, []string{"Conventions: Use pnpm, never npm.", "Conventions: Tests need TZ=UTC.",
		"Rules for agents: Run make lint before pushing."}, got)
}

// TestImportCLIRefusesABatchItCouldNotHaveRead: the host stores what the CLI read, and a batch
// with a field no reading would give is refused whole, naming the field and the limit.
func TestImportCLIRefusesABatchItCouldNotHaveRead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	good := brain.ImportFile{Path: "~/src/app/CLAUDE.md", Source: brain.SourceInstructions, Text: "- Use pnpm.\n"}
	for _, c := range []struct {
		bad  brain.ImportFile
		want string
	}{
		{brain.ImportFile{Source: brain.SourceInstructions, Text: "x"}, "files[1].path: must not be empty"},
		{brain.ImportFile{Path: "a\nb.md", Source: brain.SourceInstructions, Text: "x"}, "files[1].path: must not contain control characters"},
		{brain.ImportFile{Path: "a.md", Source: "passwd", Text: "x"}, `files[1].source: must be "instructions" or "<cli>-memory"`},
		{brain.ImportFile{Path: "a.md", Source: "claude-memory", Text: "x", Error: "cannot read the file"}, "files[1].text: must be empty when error says why"},
		{brain.ImportFile{Path: "a.md", Source: "claude-memory", Text: strings.Repeat("x", 1<<20+1)}, "files[1].text: is 1048577 bytes; files over 1048576 bytes are not imported"},
	} {
		_, err := b.brain.ImportCLI(ctx, operatorA, brain.ImportBatch{Files: []brain.ImportFile{good, c.bad}})
		require.ErrorContains(t, err, c.want)
	}
	page, err := b.mem.List(ctx, operatorA, memory.ListRequest{Limit: 10})
	require.NoError(t, err)
	require.Empty(t, page.Memories, "a refused batch stores nothing, not even its good files")

	rep, err := b.brain.ImportCLI(ctx, operatorA, brain.ImportBatch{Files: []brain.ImportFile{good,
		{Path: "~/.claude/x.md", Source: "claude-memory", Error: "cannot read the file"}}})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Added)
	require.Equal(t, "cannot read the file", rep.Files[1].Error, "what the CLI could not read is reported as it said")
}

func TestSplitImportKeepsFilesWholeAndInOrder(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", brain.MaxImportBatchBytes/2+1)
	files := []brain.ImportFile{{Path: "a", Text: big}, {Path: "b", Text: big}, {Path: "c", Error: "cannot read the file"}, {Path: "d", Text: "small"}}
	batches := brain.SplitImport(brain.ImportBatch{Files: files})
	require.Len(t, batches, 2)
	require.Equal(t, []brain.ImportFile{files[0]}, batches[0].Files)
	require.Equal(t, files[1:], batches[1].Files)
	require.Len(t, brain.SplitImport(brain.ImportBatch{Files: []brain.ImportFile{}}), 1, "an empty import is one empty batch")
}
