package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain/transfer"
	"github.com/memhost/memhost/host/internal/core/store"
)

// memhost runs a subcommand with the host's config and stdin, and returns its output and
// error, for commands that are meant to fail.
func (h *host) memhost(stdin io.Reader, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(h.bin, append(args, "--config", h.config)...)
	cmd.Stdin = stdin
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// exportFile writes an export of n memories of project p, each with a merged text and a
// two-entry history, and returns its path.
func exportFile(t *testing.T, p string, n int, edit func(i int, r *transfer.Record)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "export.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	enc := json.NewEncoder(f)
	require.NoError(t, enc.Encode(transfer.Header{Format: transfer.FormatVersion, Scope: "project", Project: p, ExportedAt: time.Now().UTC()}))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		at := base.Add(time.Duration(i) * time.Second)
		text, first := fmt.Sprintf("fact %d of a large project", i), fmt.Sprintf("fact %d, first wording", i)
		values := make([]float32, 384)
		values[i%384], values[(i/384)%384] = 0.6, 0.8
		r := transfer.Record{
			ID: uuid.Must(uuid.NewV7()), Scope: store.ScopeProject, Project: p, Kind: store.KindFact, Text: text,
			Importance: 0.5, Confidence: 0.8, Provenance: store.Provenance{Agent: "claude-code", Source: "mcp"},
			DedupedCount: 1, MergedFrom: []store.Merged{{Text: first, Agent: "codex", At: at}}, CreatedAt: at, UpdatedAt: at,
			Embedding: transfer.Embedding{Embedder: "bm25-384", Dimensions: 384, Values: values},
			History: []store.HistoryEntry{
				{Event: store.EventAdd, AfterText: &first, Actor: "codex", CreatedAt: at},
				{Event: store.EventFold, BeforeText: &first, AfterText: &text, Actor: "claude-code", CreatedAt: at},
			},
		}
		if edit != nil {
			edit(i, &r)
		}
		require.NoError(t, enc.Encode(r))
	}
	return path
}

// TestExportImportCLIAt10K moves a real-sized project through the CLI. Export failed for every
// project over 500 memories ("conn busy") and left an empty file behind.
func TestExportImportCLIAt10K(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	src := exportFile(t, "laptop/app", 10_000, nil)
	out, stderr, err := h.memhost(nil, "import", "--project", "laptop/app", src)
	require.NoError(t, err, stderr)
	require.Contains(t, out, "imported 10000 memories, skipped 0 already present")
	require.NotContains(t, stderr, "\r", "no progress line when stderr is not a terminal")

	backup := filepath.Join(t.TempDir(), "backup.jsonl")
	_, stderr, err = h.memhost(nil, "export", "--project", "laptop/app", "--out", backup)
	require.NoError(t, err, stderr)
	require.Contains(t, stderr, "exported 10000 memories")
	raw, err := os.ReadFile(backup)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	require.Len(t, lines, 10_001, "a header and every memory")
	var last transfer.Record
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last))
	require.Equal(t, "fact 9999 of a large project", last.Text)
	require.Len(t, last.History, 3, "its history and the import entry")
	entries, err := os.ReadDir(filepath.Dir(backup))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left beside the export")

	// The backup restores elsewhere, read from standard input.
	f, err := os.Open(backup)
	require.NoError(t, err)
	defer f.Close()
	out, stderr, err = h.memhost(f, "import", "--project", "server/app", "-")
	require.NoError(t, err, stderr)
	require.Contains(t, out, "imported 10000 memories, skipped 0 already present")

	_, stderr, err = h.memhost(nil, "export", "--project", "server/app", "--out", backup)
	require.Error(t, err)
	require.Contains(t, stderr, "already exists; an export never overwrites a file")
	again, err := os.ReadFile(backup)
	require.NoError(t, err)
	require.Equal(t, raw, again)
}

func TestImportCLIRefusesBadInputAndChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	file := exportFile(t, "p", 3000, func(i int, r *transfer.Record) {
		if i == 2498 {
			r.Kind = "rumour"
		}
	})
	_, stderr, err := h.memhost(nil, "import", "--project", "bad/app", file)
	require.Error(t, err)
	require.Contains(t, stderr, `memhost: import: line 2500: kind: "rumour" is not one of`)

	_, stderr, err = h.memhost(nil, "import", "--project", "\x1b[31mevil", file)
	require.Error(t, err)
	require.Contains(t, stderr, "memhost: --project: must not contain control characters (found U+001B)")

	_, stderr, err = h.memhost(nil, "export", "--project", "bad/app")
	require.NoError(t, err, stderr)
	require.Contains(t, stderr, "exported 0 memories", "the refused import left nothing behind")
}
