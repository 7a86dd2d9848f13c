package maintenance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/jobs/tasks"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
	sdkworker "github.com/memhost/memhost/sdk/worker"
)

// sessionScript is a worker chain that answers each task kind as its script says: a JSON answer,
// or "hang" (until the task's context ends), "crash" (the chain's error), "timeout" (the
// chain's deadline error, as tasks.Runner gives it) or "garbage" (text that is not the JSON
// asked for). It records the tasks it was given.
type sessionScript struct {
	release chan struct{} // closed at the end of a test that sets "stuck"
	mu      sync.Mutex
	script  map[sdkworker.TaskKind]string
	seen    []sdkworker.Task
}

func (s *sessionScript) set(kind sdkworker.TaskKind, answer string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script[kind] = answer
}

func (s *sessionScript) tasks(kind sdkworker.TaskKind) []sdkworker.Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sdkworker.Task
	for _, t := range s.seen {
		if t.Kind == kind {
			out = append(out, t)
		}
	}
	return out
}

func (s *sessionScript) Run(ctx context.Context, kind sdkworker.TaskKind, t sdkworker.Task) (sdkworker.Answer, tasks.Call, error) {
	s.mu.Lock()
	t.Kind = kind
	s.seen = append(s.seen, t)
	answer, ok := s.script[kind]
	s.mu.Unlock()
	call := tasks.Call{Task: string(kind), Worker: "sessionScript", InputTokens: 100, OutputTokens: 20}
	switch {
	case !ok:
		return sdkworker.Answer{}, tasks.Call{}, tasks.ErrNoWorker
	case answer == "hang":
		<-ctx.Done()
		return sdkworker.Answer{}, call, ctx.Err()
	case answer == "stuck": // ignores its context until the test ends
		<-s.release
		return sdkworker.Answer{}, call, nil
	case answer == "crash":
		return sdkworker.Answer{}, call, errors.New("task: " + string(kind) + ": " + tasks.ErrNoAnswer.Error() + ": sessionScript crashed")
	case answer == "timeout": // as tasks.Runner answers a call its deadline ended: no call record
		return sdkworker.Answer{}, tasks.Call{}, fmt.Errorf("task %s: %w: sessionScript did not answer", kind, context.DeadlineExceeded)
	case answer == "garbage":
		return sdkworker.Answer{Text: "Sure! Here is your summary"}, call, nil
	}
	return sdkworker.Answer{Text: answer}, call, nil
}

type summaryEnv struct {
	env
	ask     *sessionScript
	m       *Maintenance
	journal *brain.Service // appends journal entries, queueing summaries through m
	brain   *brain.Service
}

const transcriptText = "user: Switch the build to pnpm.\nassistant: Done: pnpm 9 builds it; npm is gone from CI."

// newSummaryEnv builds the summarize job over a sessionScript chain; job changes its settings.
func newSummaryEnv(t *testing.T, enabled bool, job func(*Summarize)) summaryEnv {
	t.Helper()
	return newSummaryEnvOn(t, setup(t), enabled, job)
}

// newSummaryEnvOn is newSummaryEnv on e.
func newSummaryEnvOn(t *testing.T, e env, enabled bool, job func(*Summarize)) summaryEnv {
	t.Helper()
	s := summaryEnv{env: e, ask: &sessionScript{script: map[sdkworker.TaskKind]string{}}}
	s.brain = brain.New(e.store, e.svc, brain.DefaultConfig())
	j := Summarize{Store: e.store, Memory: e.svc, Brain: s.brain, Tasks: s.ask, Extract: true, PlanDrift: true}
	if job != nil {
		job(&j)
	}
	m, err := New(e.pool, e.store, Config{Host: "host-a", testOnly: true, Jobs: []Scheduled{{
		Job: j, Enabled: enabled, Every: 15 * time.Minute, Budget: Budget{MaxRows: 10, MaxDuration: 2 * time.Second},
	}}})
	require.NoError(t, err)
	s.m = m
	s.journal = brain.New(e.store, e.svc, brain.DefaultConfig(), brain.WithSummarizer(m))
	return s
}

// end journals a session that ended with its transcript, as memhost run does.
func (s summaryEnv) end(t *testing.T, a memory.Access, session string) brain.JournalEntry {
	t.Helper()
	res, err := s.journal.AppendJournal(context.Background(), a, brain.JournalRequest{Text: "claude session ended after 4m with exit code 0.",
		Agent: "claude", Session: session, Source: "rest", Transcript: transcriptText})
	require.NoError(t, err)
	return res.Entry
}

func (s summaryEnv) entryText(t *testing.T, id any) string {
	t.Helper()
	var text string
	require.NoError(t, s.pool.QueryRow(context.Background(), `SELECT text FROM memories WHERE id = $1`, id).Scan(&text))
	return text
}

func (s summaryEnv) waiting(t *testing.T) int {
	t.Helper()
	var n int
	require.NoError(t, s.pool.QueryRow(context.Background(), `SELECT count(*) FROM session_transcripts`).Scan(&n))
	return n
}

// TestASessionIsSummarisedItsFactsExtractedAndItsPlanDriftProposed: a session that ends with
// its transcript queues the summarize job in its journal entry's transaction (one job per
// project however many sessions end); the job writes the summary into that entry, stores the
// durable facts the session stated through the write path with source "extracted" and a
// confidence below an agent's (search finds them), and files the plan update the drift chain
// asks for into the inbox. No transcript is kept once summarised.
func TestASessionIsSummarisedItsFactsExtractedAndItsPlanDriftProposed(t *testing.T) {
	t.Parallel()
	s := newSummaryEnv(t, true, nil)
	ctx := context.Background()
	admin := memory.Access{Project: proj.Project, Admin: true, Actor: "op"}
	_, err := s.brain.SetDocument(ctx, admin, store.KindPlan, brain.SetRequest{Text: "1. Move the build to pnpm.\n2. Ship v2.", Source: "cli"})
	require.NoError(t, err)
	s.ask.set(sdkworker.TaskSessionSummary, `{"summary":"Moved the build to pnpm 9 and removed npm from CI."}`)
	s.ask.set(sdkworker.TaskExtract, `{"facts":["The build uses pnpm 9; npm is not used in CI."]}`)
	s.ask.set(sdkworker.TaskPlanDrift, `{"update":true,"plan":"1. Ship v2.","reason":"the pnpm move is done"}`)

	entry := s.end(t, proj, "sess-1")
	second := s.end(t, proj, "sess-2")
	require.Equal(t, "claude session ended after 4m with exit code 0.", entry.Text, "the entry is written at once, metadata first")
	require.Equal(t, 2, s.waiting(t))
	var jobs int
	require.NoError(t, s.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'maintenance.summarize' AND state = 'available'`).Scan(&jobs))
	require.Equal(t, 1, jobs, "a burst of sessions queues one job per project")

	rep, err := s.m.RunNow(ctx, "summarize", wire.RunOptions{Project: proj.Project})
	require.NoError(t, err)
	require.Equal(t, "ok", rep.Run.Outcome)
	require.Equal(t, int64(2), rep.Result.Examined)
	require.Positive(t, rep.Result.LLMCalls)
	require.Equal(t, "claude session ended after 4m with exit code 0.\nSummary: Moved the build to pnpm 9 and removed npm from CI.", s.entryText(t, entry.ID))
	require.Contains(t, s.entryText(t, second.ID), "Summary: ")
	require.Zero(t, s.waiting(t))
	task := s.ask.tasks(sdkworker.TaskSessionSummary)[0]
	require.Equal(t, transcriptText, task.Input)
	require.NotEmpty(t, task.Schema)

	found, err := s.svc.Search(ctx, proj, memory.SearchRequest{Query: "pnpm npm CI"})
	require.NoError(t, err)
	require.NotEmpty(t, found.Hits)
	hit := found.Hits[0]
	require.Equal(t, "The build uses pnpm 9; npm is not used in CI.", hit.Text)
	require.Equal(t, "extracted", hit.Source)
	require.InDelta(t, ExtractedConfidence, hit.Confidence, 0.001)
	require.Less(t, hit.Confidence, 0.8, "below an agent's default")
	require.Equal(t, 1, hit.DedupedCount, "the second session's same fact folded into the first")

	inbox, err := s.brain.Inbox(ctx, proj, brain.InboxRequest{})
	require.NoError(t, err)
	require.Len(t, inbox.Proposals, 1, "the same drift twice is one proposal")
	require.Equal(t, "plan", inbox.Proposals[0].Layer)
	require.Equal(t, "1. Ship v2.", inbox.Proposals[0].Text)
	require.Equal(t, "plan drift: the pnpm move is done", inbox.Proposals[0].Reason)
	drift := s.ask.tasks(sdkworker.TaskPlanDrift)[0]
	require.Contains(t, drift.Input, "1. Move the build to pnpm.")
	require.Contains(t, drift.Input, "Moved the build to pnpm 9")
}

// TestPlanDriftNeverSeedsAnEmptyPlan: a project without a plan gets no drift task and no
// proposal.
func TestPlanDriftNeverSeedsAnEmptyPlan(t *testing.T) {
	t.Parallel()
	s := newSummaryEnv(t, true, nil)
	ctx := context.Background()
	s.ask.set(sdkworker.TaskSessionSummary, `{"summary":"Looked around."}`)
	s.ask.set(sdkworker.TaskExtract, `{"facts":[]}`)
	s.ask.set(sdkworker.TaskPlanDrift, `{"update":true,"plan":"1. Invent a plan.","reason":"none yet"}`)
	s.end(t, proj, "sess-1")
	_, err := s.m.RunNow(ctx, "summarize", wire.RunOptions{})
	require.NoError(t, err)
	require.Empty(t, s.ask.tasks(sdkworker.TaskPlanDrift))
	inbox, err := s.brain.Inbox(ctx, proj, brain.InboxRequest{})
	require.NoError(t, err)
	require.Empty(t, inbox.Proposals)
}

// TestABadWorkerNeverBlocksAndTheSessionWaitsForTheNextRun: a worker that hangs (cut by the
// run's wall-time budget), crashes or answers garbage leaves the entry's metadata as it was
// and its transcript queued, the run partial; a journal append meanwhile does not wait for it;
// the next run with a working worker writes the summary; after MaxAttempts failures the entry
// says why it has none and the transcript is dropped.
func TestABadWorkerNeverBlocksAndTheSessionWaitsForTheNextRun(t *testing.T) {
	t.Parallel()
	s := newSummaryEnv(t, true, func(j *Summarize) { j.MaxAttempts = 5 })
	ctx := context.Background()
	entry := s.end(t, proj, "sess-1")

	s.ask.set(sdkworker.TaskSessionSummary, "hang")
	type ran struct {
		rep Report
		err error
	}
	done := make(chan ran, 1)
	go func() {
		rep, err := s.m.RunNow(ctx, "summarize", wire.RunOptions{})
		done <- ran{rep, err}
	}()
	require.Eventually(t, func() bool { return len(s.ask.tasks(sdkworker.TaskSessionSummary)) == 1 }, 5*time.Second, 5*time.Millisecond)
	start := time.Now()
	s.end(t, memory.Access{Project: "github.com/acme/other", Actor: "bob"}, "sess-other")
	require.Less(t, time.Since(start), time.Second, "a write never waits for a worker")
	r := <-done
	require.NoError(t, r.err)
	require.Equal(t, "partial", r.rep.Run.Outcome)

	for _, bad := range []string{"crash", "garbage", `{"summary":"   "}`} {
		s.ask.set(sdkworker.TaskSessionSummary, bad)
		rep, err := s.m.RunNow(ctx, "summarize", wire.RunOptions{Project: proj.Project})
		require.NoError(t, err, bad)
		require.Equal(t, "partial", rep.Run.Outcome, bad)
		require.Equal(t, "claude session ended after 4m with exit code 0.", s.entryText(t, entry.ID), bad)
	}
	require.Equal(t, 2, s.waiting(t))

	// The other project's session is summarised by a working worker.
	s.ask.set(sdkworker.TaskSessionSummary, `{"summary":"Fixed the login bug."}`)
	_, err := s.m.RunNow(ctx, "summarize", wire.RunOptions{Project: "github.com/acme/other"})
	require.NoError(t, err)
	require.Equal(t, 1, s.waiting(t))

	// The fifth failure of proj's session is its last.
	s.ask.set(sdkworker.TaskSessionSummary, "crash")
	_, err = s.m.RunNow(ctx, "summarize", wire.RunOptions{Project: proj.Project})
	require.NoError(t, err)
	require.Equal(t, "claude session ended after 4m with exit code 0.\nNot summarised: no worker gave a usable summary", s.entryText(t, entry.ID))
	require.Zero(t, s.waiting(t))
}

// TestSummariesOffKeepMetadataAndNoTranscript: with [maintenance.summarize] disabled, or for an
// excluded project, no transcript is stored and the entry says why it has no summary.
func TestSummariesOffKeepMetadataAndNoTranscript(t *testing.T) {
	t.Parallel()
	off := newSummaryEnv(t, false, nil)
	e := off.end(t, proj, "s")
	require.Equal(t, "claude session ended after 4m with exit code 0.\nNot summarised: session summaries are off ([maintenance.summarize] enabled)", e.Text)
	require.Zero(t, off.waiting(t))

	excluded := newSummaryEnv(t, true, func(j *Summarize) { j.Exclude = []string{proj.Project} })
	e = excluded.end(t, proj, "s")
	require.True(t, strings.HasSuffix(e.Text, "Not summarised: session summaries are off for this project ([maintenance.summarize] exclude)"), e.Text)
	require.Zero(t, excluded.waiting(t))
	e = excluded.end(t, memory.Access{Project: "github.com/acme/other", Actor: "bob"}, "s")
	require.Equal(t, "claude session ended after 4m with exit code 0.", e.Text)
	require.Equal(t, 1, excluded.waiting(t))
}

// TestASummaryIsCutToTheTextLimit: a summary that would take the entry past memory.max_text_bytes
// is cut to fit, marked, rather than lost.
func TestASummaryIsCutToTheTextLimit(t *testing.T) {
	t.Parallel()
	s := newSummaryEnv(t, true, func(j *Summarize) {
		cfg := memory.DefaultConfig()
		cfg.MaxTextBytes = 80
		j.Memory = memory.New(j.Store.(store.Store), lexical.New(), memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), func(s string) (string, int) { return s, 0 }, cfg)
		j.Extract, j.PlanDrift = false, false
	})
	s.ask.set(sdkworker.TaskSessionSummary, `{"summary":"Moved the build to pnpm 9, removed npm from CI, and rewrote the release notes for v2."}`)
	entry := s.end(t, proj, "sess-1")
	_, err := s.m.RunNow(context.Background(), "summarize", wire.RunOptions{})
	require.NoError(t, err)
	text := s.entryText(t, entry.ID)
	require.Len(t, text, 80)
	require.Equal(t, "claude session ended after 4m with exit code 0.\nSummary: Moved the build to p…", text)
	require.Zero(t, s.waiting(t))
}

// TestEveryWorkerTextPassesTheWriteRules: what the summarize chains answer is held to the
// rules of an agent's write before it is stored: a summary holding a GitHub token, an AWS key
// pair, a database URL with its password, an escape sequence and a bidi override is stored
// redacted and clean, and so shown in the banner's "Recent sessions" and given to the
// conflicts chain; an extracted fact and a plan-drift proposal likewise.
func TestEveryWorkerTextPassesTheWriteRules(t *testing.T) {
	t.Parallel()
	s := newSummaryEnvOn(t, setupRedacting(t, memory.DefaultConfig(), realRedactor(t)), true, nil)
	ctx := context.Background()
	tok := "ghp_" + strings.Repeat("Zk4", 12)
	awsID, awsSecret := "AKIA"+"XYZW2345"+"ABCDEFGH", strings.Repeat("aB3/", 10)
	pw := "PW" + "s3cret9"
	secrets := []string{tok, awsID, awsSecret, pw, "\x1b", "\u202e"}
	quote := func(v string) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return string(b)
	}
	admin := memory.Access{Project: proj.Project, Admin: true, Actor: "op"}
	_, err := s.brain.SetDocument(ctx, admin, store.KindPlan, brain.SetRequest{Text: "1. Rotate the keys.", Source: "cli"})
	require.NoError(t, err)
	s.write(t, proj, "Deploys go through ArgoCD.")
	s.write(t, proj, "The api listens on 8080.")
	s.ask.set(sdkworker.TaskSessionSummary, `{"summary":`+quote("Rotated the deploy token to "+tok+"; AWS: "+awsID+" / "+awsSecret+
		"; the DB is postgres://app:"+pw+"@host/db. \x1b[2KAll \u202eenod\u202c.")+`}`)
	s.ask.set(sdkworker.TaskExtract, `{"facts":[`+quote("CI pushes with \u202e"+tok)+`]}`)
	s.ask.set(sdkworker.TaskPlanDrift, `{"update":true,"plan":`+quote("1. Use "+tok+" for releases.")+`,"reason":`+quote("keys\nrotated \x1b[31m "+tok)+`}`)
	entry := s.end(t, proj, "sess-1")

	rep, err := s.m.RunNow(ctx, "summarize", wire.RunOptions{Project: proj.Project})
	require.NoError(t, err)
	require.Equal(t, "ok", rep.Run.Outcome)
	text := s.entryText(t, entry.ID)
	require.Contains(t, text, "Summary: Rotated the deploy token to [REDACTED:github-pat]; AWS: [REDACTED:aws-access-token] / [REDACTED:aws-secret-access-key]; "+
		"the DB is postgres://app:[REDACTED:url-password]@host/db. [2KAll enod.")

	b, err := s.brain.Banner(ctx, proj, brain.BannerRequest{})
	require.NoError(t, err)
	require.Contains(t, b.Text, "## Recent sessions")
	require.Contains(t, b.Text, "[REDACTED:github-pat]")
	found, err := s.svc.Search(ctx, proj, memory.SearchRequest{Query: "CI pushes"})
	require.NoError(t, err)
	require.Equal(t, "CI pushes with [REDACTED:github-pat]", found.Hits[0].Text, "the extracted fact")
	inbox, err := s.brain.Inbox(ctx, proj, brain.InboxRequest{})
	require.NoError(t, err)
	require.Len(t, inbox.Proposals, 1)
	require.Equal(t, "1. Use [REDACTED:github-pat] for releases.", inbox.Proposals[0].Text)
	require.Equal(t, "plan drift: keys rotated [31m [REDACTED:github-pat]", inbox.Proposals[0].Reason)

	conflicts := &sessionScript{script: map[sdkworker.TaskKind]string{sdkworker.TaskConflicts: `{"pairs":[]}`}}
	_, err = s.conflictsJob(t, &fakeClock{now: time.Now()}, conflicts).RunNow(ctx, "conflicts", wire.RunOptions{Project: proj.Project})
	require.NoError(t, err)
	input := conflicts.tasks(sdkworker.TaskConflicts)[0].Input
	require.Contains(t, input, "Summary: Rotated the deploy token to [REDACTED:github-pat]")
	for _, leak := range secrets {
		for where, got := range map[string]string{"entry": text, "banner": b.Text, "conflicts input": input,
			"fact": found.Hits[0].Text, "proposal": inbox.Proposals[0].Text + inbox.Proposals[0].Reason} {
			require.NotContains(t, got, leak, "%q reached the %s", leak, where)
		}
	}
}

// TestTimedOutCallsAreCounted: calls the chain's deadline ended are LLM calls of the run (the
// worker was asked and may have spent tokens): two sessions whose summaries timed out record
// two, not zero.
func TestTimedOutCallsAreCounted(t *testing.T) {
	t.Parallel()
	s := newSummaryEnv(t, true, nil)
	s.ask.set(sdkworker.TaskSessionSummary, "timeout")
	s.end(t, proj, "sess-1")
	s.end(t, proj, "sess-2")
	rep, err := s.m.RunNow(context.Background(), "summarize", wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "partial", rep.Run.Outcome)
	require.EqualValues(t, 2, rep.Run.LLMCalls)
	require.Equal(t, 2, s.waiting(t), "both sessions wait for the next run")
}
