package main

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// cliHost serves a host core on a test listener and returns its config, the core and an
// operator's read/write token.
func cliHost(t *testing.T) (cfg string, core *server.Core, token string) {
	t.Helper()
	ln := httptest.NewUnstartedServer(nil)
	cfg, _ = brainConfig(t, ln.Listener.Addr().String())
	core = serveCore(t, ln, cfg, false)
	token, _, err := core.Tokens.Create(context.Background(), auth.CreateToken{Name: "operator", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	require.NoError(t, err)
	return cfg, core, token
}

// serveCore opens a core on the config at cfg, as `memhost serve` does (with its workers when
// workers), and serves it on ln until the test ends.
func serveCore(t *testing.T, ln *httptest.Server, cfg string, workers bool) *server.Core {
	t.Helper()
	core := openCore(t, cfg)
	if workers {
		require.NoError(t, core.StartWorkers(t.Context()))
	}
	handler, closeMCP := core.Handler()
	ln.Config.Handler = handler
	ln.Start()
	t.Cleanup(func() { ln.Close(); closeMCP() })
	return core
}

// storedID reads the short id `memory add` printed.
func storedID(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`memory ([0-9a-f]{8,})`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	return m[1]
}

// TestAFactIsStoredEditedAndTracedFromTheShell: `memhost memory add` stores a fact through the
// running host's write path (so it folds, keeping the better wording), `memory get` shows the
// paraphrase folded in and, apart, what consolidation merged, `memory edit` corrects the text
// (flag or editor) and kind, refusing bad input and another memory's text with the field and
// the rule, and `memory history` tells the whole story.
func TestAFactIsStoredEditedAndTracedFromTheShell(t *testing.T) {
	t.Parallel()
	cfg, core, token := cliHost(t)
	p := []string{"--config", cfg, "--project", cliProject, "--token", token}
	mem := func(args ...string) (string, error) {
		return run(t, append(append([]string{"memory"}, args...), p...)...)
	}

	out, err := mem("add", "We use npm to install dependencies.", "--kind", "convention")
	require.NoError(t, err, out)
	require.Contains(t, out, "stored as memory")
	id := storedID(t, out)
	out, err = mem("add", "we use npm to install dependencies in this repository")
	require.NoError(t, err, out)
	require.Contains(t, out, "folded into memory "+id)
	require.Contains(t, out, "which reads: We use npm to install dependencies.", "the better wording stays")
	out, err = runIn(t, "Releases are cut on Tuesdays.\n", append([]string{"memory", "add", "-", "--pin"}, p...)...)
	require.NoError(t, err, out)
	other := storedID(t, out)

	_, err = mem("add", "x", "--kind", "diary")
	require.ErrorContains(t, err, "kind")

	// A second fact that consolidation merges into the first.
	ctx := context.Background()
	dup, err := core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "Dependencies come from the npm registry mirror."})
	require.NoError(t, err)
	first, err := core.Service.Lookup(ctx, operator(cliProject), id)
	require.NoError(t, err)
	_, err = core.Service.Merge(ctx, memory.MergeRequest{Survivor: first, Absorbed: []uuid.UUID{dup.ID}, Actor: "consolidate",
		Texts: map[uuid.UUID]string{first: "We use npm to install dependencies.", dup.ID: dup.Memory.Text}})
	require.NoError(t, err)

	out, err = mem("get", id)
	require.NoError(t, err, out)
	require.Contains(t, out, "folded in (1 paraphrase):\n  - we use npm to install dependencies in this repository")
	require.Contains(t, out, "merged by consolidation (1 memory;")
	require.Contains(t, out, "["+shortid.Of(dup.ID)+"] Dependencies come from the npm registry mirror.")

	out, err = mem("edit", id, "--text", "We use pnpm to install dependencies.", "--kind", "decision")
	require.NoError(t, err, out)
	require.Contains(t, out, "memory "+id+" edited; it reads: We use pnpm to install dependencies.")
	editor := filepath.Join(t.TempDir(), "editor.sh")
	testplugins.WriteScript(t, editor, "#!/bin/sh\nsed -i 's/pnpm/pnpm 9/' \"$1\"\n")
	out, err = mem("edit", id, "--editor", editor)
	require.NoError(t, err, out)
	require.Contains(t, out, "it reads: We use pnpm 9 to install dependencies.")
	out, err = mem("edit", id, "--editor", "true")
	require.NoError(t, err, out)
	require.Contains(t, out, "memory "+id+" unchanged")

	for args, want := range map[*[]string]string{
		{"edit", id, "--importance", "2"}:                       "importance: 2 is out of range 0..1",
		{"edit", id, "--text", "Releases are cut on Tuesdays."}: "memory " + other + " already says this",
		{"edit", id, "--editor", "false"}:                       "nothing was changed",
	} {
		out, err = mem(*args...)
		require.ErrorContains(t, err, want, out)
	}

	out, err = mem("history", id)
	require.NoError(t, err, out)
	for _, want := range []string{
		`add`, `"We use npm to install dependencies."`,
		`folded in "we use npm to install dependencies in this repository"; kept "We use npm to install dependencies." (well-formed)`,
		`consolidation merged 1 memory into it`,
		`edited kind, text: was "We use npm to install dependencies.", now "We use pnpm to install dependencies."`,
		`edited text: was "We use pnpm to install dependencies.", now "We use pnpm 9 to install dependencies."`,
	} {
		require.Contains(t, out, want)
	}

	out, err = mem("search", "pnpm dependencies")
	require.NoError(t, err, out)
	require.Regexp(t, `ID\s+SCORE\s+KIND`, out)
	require.Regexp(t, id+`\s+0\.\d\d\s+decision`, out)
}

// TestTheJournalIsReadFromTheShell: `memhost project journal list` and `show ID` read the
// project's journal through the running host; show refuses a memory that is not an entry.
func TestTheJournalIsReadFromTheShell(t *testing.T) {
	t.Parallel()
	cfg, core, token := cliHost(t)
	p := []string{"--config", cfg, "--project", cliProject, "--token", token}
	ctx := context.Background()
	e, err := core.Brain.AppendJournal(ctx, operator(cliProject), brain.JournalRequest{Agent: "codex", Source: "rest",
		Text: "codex session ended after 4m with exit code 0.\nSummary: moved the release scripts into the Makefile."})
	require.NoError(t, err)
	fact, err := core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "Release scripts live in the Makefile."})
	require.NoError(t, err)

	out, err := run(t, append([]string{"project", "journal", "list"}, p...)...)
	require.NoError(t, err, out)
	require.Regexp(t, `ID\s+WHEN\s+AGENT\s+TEXT`, out)
	require.Contains(t, out, shortid.Of(e.Entry.ID))
	require.Contains(t, out, "codex session ended after 4m with exit code 0.")

	out, err = run(t, append([]string{"project", "journal", "show", shortid.Of(e.Entry.ID)}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "journal entry "+e.Entry.ID.String())
	require.Contains(t, out, "Summary: moved the release scripts into the Makefile.")

	_, err = run(t, append([]string{"project", "journal", "show", shortid.Of(fact.ID)}, p...)...)
	require.ErrorContains(t, err, "is a fact, not a journal entry")
}
