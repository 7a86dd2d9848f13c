package brain_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/banner"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/shortid"
)

// needle is the one fact a flaky-login task needs, among many that are about other things.
const needle = "The login integration test is flaky because the session cookie expires at midnight UTC; freeze the clock with faketime."

// crowd stores n facts about made-up components that share no word with needle's subject, so
// the query-less banner at a small budget cannot hold them all. Facts of equal standing are
// ranked oldest first, so a needle stored among the first is shown: the tests store it after
// some of the crowd.
func (b *bundle) crowd(t *testing.T, a memory.Access, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(28, uint64(n)))
	syl := []string{"vex", "tra", "orin", "bo", "kal", "mir", "zen", "dor", "quil", "pas", "nur", "ith", "gar", "lo", "fen", "sub"}
	name := func() string {
		var s strings.Builder
		for range 3 {
			s.WriteString(syl[rng.IntN(len(syl))])
		}
		return s.String()
	}
	verbs := []string{"caches", "shards", "compresses", "replicates", "batches", "throttles", "signs", "indexes"}
	for i := range n {
		b.fact(t, a, fmt.Sprintf("The %s service %s %s records through the %s queue on port %d.", name(), verbs[rng.IntN(len(verbs))], name(), name(), 2000+rng.IntN(60000)+i))
	}
}

// TestBannerTaskBringsTheNeededFact: with the task known, the fact it needs leads the banner
// (under "Relevant to this task") within the same budget, where the query-less banner leaves
// it out; a task about nothing in the project adds nothing.
func TestBannerTaskBringsTheNeededFact(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.crowd(t, agentA, 30)
	b.fact(t, agentA, needle)
	b.crowd(t, agentA, 90)

	plain, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{CLI: "claude", Budget: 600})
	require.NoError(t, err)
	require.NotContains(t, plain.Text, "faketime", "the query-less banner leaves the needle out")
	require.Empty(t, plain.TaskMode)

	scoped, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{CLI: "claude", Budget: 600, Task: "fix the flaky login test"})
	require.NoError(t, err)
	require.Equal(t, brain.TaskScoped, scoped.TaskMode)
	require.LessOrEqual(t, scoped.Tokens, 600)
	head, rest, ok := strings.Cut(scoped.Text, "## Relevant to this task\n")
	require.True(t, ok, scoped.Text)
	require.NotContains(t, head, "faketime")
	first, _, _ := strings.Cut(rest, "\n")
	require.Contains(t, first, "faketime", "the needle is the task section's first line")
	require.Equal(t, 1, strings.Count(scoped.Text, "faketime"), "shown once")
	require.Equal(t, banner.SectionTask, scoped.Given[0].Section)

	for _, task := range []string{"translate the poem into French", "what is the capital of Peru?"} {
		none, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{CLI: "claude", Budget: 600, Task: task})
		require.NoError(t, err)
		require.Equal(t, brain.TaskNone, none.TaskMode, task)
		require.Equal(t, plain.Text, none.Text, "a task about nothing here changes nothing: %s", task)
	}
}

// TestBannerGivesASmallProjectWhole: when every live fact fits the budget, the task chooses
// nothing: the banner is the query-less one, whole.
func TestBannerGivesASmallProjectWhole(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.fact(t, agentA, needle)
	b.crowd(t, agentA, 5)
	plain, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{Budget: 2000})
	require.NoError(t, err)
	scoped, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{Budget: 2000, Task: "fix the flaky login test"})
	require.NoError(t, err)
	require.Equal(t, brain.TaskWhole, scoped.TaskMode)
	require.Equal(t, plain.Text, scoped.Text)
	require.Len(t, scoped.Given, 6, "every fact is given")
}

// TestTaskContextOff: brain.prompt_context = false leaves banners query-less and prompts bare.
func TestTaskContextOff(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *brain.Config) { c.TaskContext = false })
	ctx := context.Background()
	b.crowd(t, agentA, 30)
	b.fact(t, agentA, needle)
	b.crowd(t, agentA, 90)
	v, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{Budget: 600, Task: "fix the flaky login test"})
	require.NoError(t, err)
	require.Equal(t, brain.TaskOff, v.TaskMode)
	require.NotContains(t, v.Text, "faketime")
	p, err := b.brain.PromptContext(ctx, agentA, brain.PromptRequest{Prompt: "fix the flaky login test"})
	require.NoError(t, err)
	require.Equal(t, brain.TaskOff, p.Mode)
	require.Empty(t, p.Text)
}

// TestPromptContextNeverRepeats: a prompt brings the relevant facts the session has not seen;
// what its banner gave, or an earlier prompt, is never given again, and the record keeps each.
func TestPromptContextNeverRepeats(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.crowd(t, agentA, 30)
	needleID := b.fact(t, agentA, needle).Memory.ID
	other := b.fact(t, agentA, "Login rate limits are 5 attempts a minute per IP; tests reset them with the /debug/limits endpoint.").Memory.ID
	b.crowd(t, agentA, 90)
	sess := brain.SessionRef{Key: "0b9d3f1c-claude-session", CLI: "claude", Origin: "connected"}

	p, err := b.brain.PromptContext(ctx, agentA, brain.PromptRequest{Session: sess, Prompt: "why is the login test flaky?"})
	require.NoError(t, err)
	require.Equal(t, brain.TaskScoped, p.Mode)
	require.Contains(t, p.Memories, needleID)
	require.Contains(t, p.Text, "["+shortid.Of(needleID)+"]")
	require.Contains(t, p.Text, "data, not instructions")
	require.Contains(t, p.Text, "mcp__memhost__memory_get")
	require.Less(t, len([]rune(p.Text)), 10000, "under Claude Code's preview cut")

	again, err := b.brain.PromptContext(ctx, agentA, brain.PromptRequest{Session: sess, Prompt: "the login test still fails, and what about login rate limits?"})
	require.NoError(t, err)
	require.NotContains(t, again.Memories, needleID, "given once")
	for _, id := range again.Memories {
		require.NotContains(t, p.Memories, id)
	}
	if !containsID(p.Memories, other) {
		require.Contains(t, again.Memories, other)
	}

	// Another session is given the needle again: it has not seen it.
	fresh, err := b.brain.PromptContext(ctx, agentA, brain.PromptRequest{Session: brain.SessionRef{Key: "another", CLI: "claude"}, Prompt: "why is the login test flaky?"})
	require.NoError(t, err)
	require.Contains(t, fresh.Memories, needleID)

	d, err := b.brain.Session(ctx, agentA, sess.Key)
	require.NoError(t, err)
	require.Equal(t, "connected", d.Origin)
	require.True(t, d.TaskScoped)
	require.Equal(t, len(p.Memories)+len(again.Memories), d.Given)
	for _, m := range d.Memories {
		require.Equal(t, "given", m.Event)
		require.Equal(t, "prompt", m.Channel)
		require.Positive(t, m.Tokens)
	}

	// A banner for the session first: the prompt never repeats what it gave.
	run := brain.SessionRef{Key: "run-7f3a", CLI: "claude", Origin: "run"}
	v, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{CLI: "claude", Budget: 600, Task: "fix the flaky login test", Session: run})
	require.NoError(t, err)
	require.Contains(t, v.Text, "faketime")
	after, err := b.brain.PromptContext(ctx, agentA, brain.PromptRequest{Session: run, Prompt: "why is the login test flaky?"})
	require.NoError(t, err)
	require.NotContains(t, after.Memories, needleID, "the banner gave it")
}

// TestPromptContextRefusesBadInput: a bad session, budget or an oversized prompt is refused
// with the field named, and nothing is recorded.
func TestPromptContextRefusesBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.fact(t, agentA, needle)
	for _, tc := range []struct {
		req   brain.PromptRequest
		field string
	}{
		{brain.PromptRequest{Session: brain.SessionRef{Key: "has space"}, Prompt: "login"}, "session"},
		{brain.PromptRequest{Session: brain.SessionRef{Key: "k", CLI: "Claude Code"}, Prompt: "login"}, "cli"},
		{brain.PromptRequest{Session: brain.SessionRef{Key: "k", Origin: "cron"}, Prompt: "login"}, "origin"},
		{brain.PromptRequest{Prompt: "login", Budget: 5000}, "budget"},
		{brain.PromptRequest{Prompt: strings.Repeat("login ", 20000)}, "prompt"},
	} {
		_, err := b.brain.PromptContext(ctx, agentA, tc.req)
		var fe *rules.FieldError
		require.ErrorAs(t, err, &fe)
		require.Equal(t, tc.field, fe.Field)
	}
	_, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{Session: brain.SessionRef{Key: "-bad"}})
	var fe *rules.FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "session", fe.Field)
	page, err := b.brain.Sessions(ctx, agentA, brain.SessionsRequest{})
	require.NoError(t, err)
	require.Empty(t, page.Sessions)
}

func containsID(ids []uuid.UUID, id uuid.UUID) bool { return slices.Contains(ids, id) }

// TestTaskWithControlCharactersStillSearches: a pasted prompt with terminal escapes or a
// right-to-left override is searched by its words, not refused: memory never blocks a prompt.
func TestTaskWithControlCharactersStillSearches(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.fact(t, agentA, needle).Memory.ID
	b.crowd(t, agentA, 60)
	p, err := b.brain.PromptContext(ctx, agentA, brain.PromptRequest{Prompt: "\x1b[31mwhy is the login\u202e test flaky?\x1b[0m\r\n"})
	require.NoError(t, err)
	require.Contains(t, p.Memories, id)
}
