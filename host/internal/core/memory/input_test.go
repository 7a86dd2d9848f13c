package memory_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/redact"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

type inputBundle struct {
	svc   *memory.Service
	store *pgstore.Store
}

// setupInputs is the service with the real secret redactor and the BM25 plugin.
func setupInputs(t *testing.T) inputBundle {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	st := pgstore.New(pool)
	r, err := redact.New()
	require.NoError(t, err)
	redactFn := func(s string) (string, int) {
		out, findings := r.Redact(s)
		return out, len(findings)
	}
	svc := memory.New(st, lexical.New(), memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), redactFn, memory.DefaultConfig())
	return inputBundle{svc: svc, store: st}
}

// fakeGitHubToken has the shape of a classic GitHub token; it is generated, never real.
func fakeGitHubToken() string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	r := rand.New(rand.NewPCG(6, 7))
	b := make([]byte, 36)
	for i := range b {
		b[i] = alnum[r.IntN(len(alnum))]
	}
	return "ghp_" + string(b)
}

func TestEveryFreeTextFieldIsValidated(t *testing.T) {
	t.Parallel()
	b := setupInputs(t)
	ctx := context.Background()
	long := strings.Repeat("a", 201)
	cases := []struct {
		name  string
		req   memory.StoreRequest
		field string
		want  string
	}{
		{"zero-width only", memory.StoreRequest{Text: "\u200b\u200c\u200d\u200e\u200f"}, "text", "only invisible"},
		{"word joiner and BOM", memory.StoreRequest{Text: "\u2060\ufeff \u2060"}, "text", "only invisible"},
		{"variation selectors", memory.StoreRequest{Text: "\ufe0f\ufe0e\U000E0100"}, "text", "only invisible"},
		{"control characters", memory.StoreRequest{Text: "\x01\x02\x1b\x7f"}, "text", "control characters other than tab and line breaks (found U+0001)"},
		{"terminal escape", memory.StoreRequest{Text: "+ harmless\x1b[2K\x1b[1A"}, "text", "(found U+001B)"},
		{"bell", memory.StoreRequest{Text: "ding\a"}, "text", "(found U+0007)"},
		{"C1 control sequence introducer", memory.StoreRequest{Text: "a\u009b8m hidden"}, "text", "(found U+009B)"},
		{"lone carriage return", memory.StoreRequest{Text: "shown\rhidden"}, "text", "(found U+000D)"},
		{"bidi override", memory.StoreRequest{Text: "access is granted \u202eyllanretni\u202c only"}, "text", "bidi control characters, which reorder how the text reads (found U+202E)"},
		{"bidi isolate", memory.StoreRequest{Text: "run \u2066make clean\u2069"}, "text", "(found U+2066)"},
		{"hangul filler", memory.StoreRequest{Text: "\u3164\u3164"}, "text", "only invisible"},
		{"lone surrogate", memory.StoreRequest{Text: "note \xed\xa0\x80 here"}, "text", "must be valid UTF-8"},
		{"invalid byte", memory.StoreRequest{Text: "bad \xff byte"}, "text", "must be valid UTF-8"},
		{"agent escape", memory.StoreRequest{Text: "a fact", Agent: "claude\x1b[31m"}, "agent", "control characters (found U+001B)"},
		{"session bell", memory.StoreRequest{Text: "a fact", Session: "s\x07"}, "session", "control characters (found U+0007)"},
		{"source nul", memory.StoreRequest{Text: "a fact", Source: "x\x00y"}, "source", "control characters (found U+0000)"},
		{"agent surrogate", memory.StoreRequest{Text: "a fact", Agent: "\xed\xa0\x80"}, "agent", "must be valid UTF-8"},
		{"agent invisible", memory.StoreRequest{Text: "a fact", Agent: "\u3164"}, "agent", "only invisible"},
		{"agent zero-width space", memory.StoreRequest{Text: "a fact", Agent: "claude\u200b"}, "agent", "invisible format characters such as zero-width spaces or bidi overrides (found U+200B)"},
		{"session bidi override", memory.StoreRequest{Text: "a fact", Session: "s\u202e1"}, "session", "(found U+202E)"},
		{"source line separator", memory.StoreRequest{Text: "a fact", Source: "x\u2028y"}, "source", "(found U+2028)"},
		{"agent too long", memory.StoreRequest{Text: "a fact", Agent: long}, "agent", "is 201 bytes; the limit is 200 bytes"},
	}
	for _, tc := range cases {
		_, err := b.svc.Store(ctx, alice, tc.req)
		var fe *rules.FieldError
		require.ErrorAs(t, err, &fe, tc.name)
		require.Equal(t, tc.field, fe.Field, tc.name)
		require.Contains(t, fe.Error(), tc.want, tc.name)
	}
	_, err := b.svc.Search(ctx, alice, memory.SearchRequest{Query: "\u200b\ufeff"})
	var fe *rules.FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "query", fe.Field)

	stored, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "Line one\n\tline two\r\n", Agent: "claude-code", Session: "🎯 session"})
	require.NoError(t, err, "tabs and line breaks are text, not control")
	for _, reason := range []string{"moved\x00on", "moved\x1bon", "\xed\xa0\x80", "\u200b\u2060", strings.Repeat("r", 501)} {
		_, err := b.svc.Archive(ctx, alice, stored.ID, reason)
		require.ErrorAs(t, err, &fe, "reason %q", reason)
		require.Equal(t, "reason", fe.Field)
	}
	v, err := b.svc.Get(ctx, alice, stored.ID)
	require.NoError(t, err)
	require.Nil(t, v.ArchivedAt, "a rejected archive changes nothing")
	counts, err := b.store.Counts(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, counts.Live+counts.Archived, "only the valid write was stored")
}

func TestSecretsAreRedactedFromEveryFreeTextField(t *testing.T) {
	t.Parallel()
	b := setupInputs(t)
	ctx := context.Background()
	tok := fakeGitHubToken()
	res, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "the release job uses " + tok,
		Agent: "bot " + tok, Session: tok, Source: "paste " + tok})
	require.NoError(t, err)
	require.Equal(t, 4, res.Redactions)
	v, err := b.svc.Archive(ctx, alice, res.ID, "leaked "+tok+", rotate it")
	require.NoError(t, err)
	require.Equal(t, "leaked [REDACTED:github-pat], rotate it", v.ArchivedReason)

	got, err := b.svc.Get(ctx, alice, res.ID)
	require.NoError(t, err)
	h, err := b.svc.History(ctx, alice, res.ID)
	require.NoError(t, err)
	for what, data := range map[string]any{"memory": got, "history": h} {
		out, err := json.Marshal(data)
		require.NoError(t, err)
		require.NotContains(t, string(out), tok, "the token reached the %s", what)
		require.Contains(t, string(out), "[REDACTED:github-pat]", what)
	}
	require.Equal(t, "bot [REDACTED:github-pat]", got.Agent)
}

// TestEmojiOnlyTextIsStoredAndFound: the BM25 embedder has no tokens for emoji, so such text
// has the zero vector. It is stored beside other memories, folds with its exact duplicate,
// and a search for it finds it, with nothing NaN in any answer.
func TestEmojiOnlyTextIsStoredAndFound(t *testing.T) {
	t.Parallel()
	b := setupInputs(t)
	ctx := context.Background()
	fresh := memory.Access{Project: "github.com/acme/fresh", Actor: "alice"}
	first, err := b.svc.Store(ctx, fresh, memory.StoreRequest{Text: "🚀🚀"})
	require.NoError(t, err, "a project's first memory may have no tokens")
	for _, text := range []string{"We deploy on Fridays.", "CI runs on Buildkite.", "CI runs on Buildkite agents."} {
		_, err := b.svc.Store(ctx, fresh, memory.StoreRequest{Text: text})
		require.NoError(t, err, "later writes in that project")
	}

	_, err = b.svc.Store(ctx, alice, memory.StoreRequest{Text: "Releases ship on Fridays."})
	require.NoError(t, err)
	party, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "🎉🎉🎉"})
	require.NoError(t, err, "emoji-only text next to other memories")
	require.False(t, party.Folded)
	again, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "🎉🎉🎉"})
	require.NoError(t, err)
	require.True(t, again.Exact)
	require.Equal(t, party.ID, again.ID)

	for a, want := range map[memory.Access]string{alice: party.ID.String(), fresh: first.ID.String()} {
		text := map[memory.Access]string{alice: "🎉🎉🎉", fresh: "🚀🚀"}[a]
		res, err := b.svc.Search(ctx, a, memory.SearchRequest{Query: text})
		require.NoError(t, err)
		require.NotEmpty(t, res.Hits, "searching %s", text)
		require.Equal(t, want, res.Hits[0].ID.String())
		_, err = json.Marshal(res)
		require.NoError(t, err, "search results encode: no NaN")
	}
	h, err := b.svc.History(ctx, alice, party.ID)
	require.NoError(t, err)
	_, err = json.Marshal(h)
	require.NoError(t, err)
}
