//go:build e2ecli

package e2ecli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/standin"
)

// The value tests (issue 28) on the real Claude Code: the one fact a task needs, out of
// hundreds, reaches the model when the task is known at spawn (memhost run claude -- -p TASK)
// and when the user types it (the UserPromptSubmit hook memhost connect registers); nothing is
// added when the task is about nothing in the project; and the session's record says what it
// was given and cited.

const (
	// needleTask is a task whose one needed fact is needle.
	needleTask = "fix the flaky login integration test"
	// unrelatedTask is about nothing in the project.
	unrelatedTask = "write a haiku about autumn leaves on a quiet lake"
	// taskSection is the banner section task scoping adds; promptContext opens a prompt hook's.
	taskSection   = "## Relevant to this task"
	promptContext = "memhost: project memories relevant to this prompt"
)

// crowdProject stores n facts about made-up services (nothing about logins or tests) in the
// world's project around one needle, stored after the first 60 so the query-less banner, which
// shows the oldest of equals first, leaves it out. It returns the needle's text and short id.
func (w *spawnWorld) crowdProject(t *testing.T, n int) (needle, short string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(28, 1))
	syl := []string{"vex", "tra", "orin", "bo", "kal", "mir", "zen", "dor", "quil", "pas", "nur", "ith", "gar", "fen", "sub"}
	name := func() string {
		var s strings.Builder
		for range 3 {
			s.WriteString(syl[rng.IntN(len(syl))])
		}
		return s.String()
	}
	verbs := []string{"caches", "shards", "compresses", "replicates", "batches", "throttles", "signs", "indexes"}
	needle = "NEEDLE-" + w.b.sentinel + ": the login integration test is flaky because the session cookie expires at midnight UTC; freeze the clock with faketime."
	for i := range n {
		if i == 60 {
			short = w.storeFact(t, needle)
		}
		w.storeFact(t, fmt.Sprintf("The %s service %s %s records through the %s queue on port %d.", name(), verbs[rng.IntN(len(verbs))], name(), name(), 2000+i))
	}
	return needle, short
}

// storeFact stores text in the world's project through REST and returns its short id.
func (w *spawnWorld) storeFact(t *testing.T, text string) string {
	t.Helper()
	var out struct {
		Memory struct {
			ID string `json:"id"`
		} `json:"memory"`
	}
	w.api(t, http.MethodPost, "/api/v1/memories", map[string]string{"text": text, "project": w.b.project}, &out)
	return out.Memory.ID[len(out.Memory.ID)-8:]
}

// api calls the host's REST API with the admin token and decodes the answer into out.
func (w *spawnWorld) api(t *testing.T, method, path string, body, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, w.b.host.url+path, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+w.admin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Less(t, resp.StatusCode, 300, "%s %s: %s", method, path, data)
	if out != nil {
		require.NoError(t, json.Unmarshal(data, out), string(data))
	}
}

// agentRequests are the model requests of the agent's own turns (not titles or probes).
func agentRequests(model *standin.Server) []standin.Request {
	var out []standin.Request
	for _, r := range model.Requests() {
		if !r.Auxiliary {
			out = append(out, r)
		}
	}
	return out
}

// value reads the world's project's value report.
func (w *spawnWorld) value(t *testing.T) map[string]any {
	t.Helper()
	var r map[string]any
	w.api(t, http.MethodGet, "/api/v1/projects/"+url.PathEscape(w.b.project)+"/value", nil, &r)
	return r
}

// TestRunClaudeTaskBringsTheNeededFact: `memhost run claude -- -p TASK` in a project of 300
// facts: the provider finds the task in Claude Code's arguments, the banner leads with the one
// fact it needs under "Relevant to this task", and it reaches the model once (the prompt hook
// memhost run registers gives nothing the banner gave). The answer cites it, and the session's
// record has it given and cited. A task about nothing in the project gets the query-less
// banner: no task section, no needle, and the prompt hook adds nothing either.
func TestRunClaudeTaskBringsTheNeededFact(t *testing.T) {
	t.Parallel()
	b := setupOn(t, startHostWith(t, hostOptions{extra: journalEverySession}), standin.Anthropic, standin.Say(doneText))
	w := newSpawnWorld(t, b)
	needle, short := w.crowdProject(t, 300)
	answer := "Froze the clock. Memory used: [" + short + "]"
	b.model = newModel(t, standin.Anthropic, standin.Say(answer), standin.Say(doneText))

	run := w.run(t, claudeCode, claudeEnv(t, b), "-p", needleTask, "--output-format", "json")
	require.Zero(t, run.exitCode, "stdout:\n%s\nstderr:\n%s", run.stdout, run.stderr)
	require.Contains(t, run.stdout, answer)
	reqs := agentRequests(b.model)
	require.NotEmpty(t, reqs)
	first := reqs[0]
	require.True(t, first.Contains(taskSection), "the banner has a task section")
	require.Equal(t, 1, strings.Count(first.Text(), needle), "the needle reaches the model once")
	require.False(t, first.Contains(promptContext), "the prompt hook gives nothing the banner gave")

	r := w.value(t)
	totals := r["totals"].(map[string]any)
	require.Equal(t, float64(1), totals["sessions"])
	require.Equal(t, float64(1), totals["cited"], "the answer's citation is recorded")
	sessions := r["sessions"].([]any)
	s := sessions[0].(map[string]any)
	require.Equal(t, "run", s["origin"])
	require.Equal(t, true, s["task_scoped"])
	require.Equal(t, float64(1), s["used"])
	require.NotEmpty(t, s["cli_session"], "the end names Claude Code's own session")
	require.Positive(t, s["tokens"], "Claude Code's usage fields are read")

	run = w.run(t, claudeCode, claudeEnv(t, b), "-p", unrelatedTask, "--output-format", "json")
	requireClaudeResult(t, run)
	last := agentRequests(b.model)
	second := last[len(last)-1]
	require.False(t, second.Contains(taskSection), "an unrelated task adds no section")
	require.False(t, second.Contains("NEEDLE-"+b.sentinel))
	require.False(t, second.Contains(promptContext))
	require.Empty(t, b.egress.seen())
}

// TestConnectClaudePromptHookBringsTheNeededFact: after memhost connect claude, plain `claude
// -p` gets the query-less banner from the SessionStart hook (which does not know the task) and
// the one fact the typed prompt needs from the UserPromptSubmit hook, in Claude Code's
// additionalContext; a prompt about nothing in the project gets nothing. The session's record,
// kept under Claude Code's own session id, has the needle given through the prompt.
func TestConnectClaudePromptHookBringsTheNeededFact(t *testing.T) {
	t.Parallel()
	b := setupOn(t, startHostWith(t, hostOptions{extra: journalEverySession}), standin.Anthropic, standin.Say(doneText))
	w := newSpawnWorld(t, b)
	needle, _ := w.crowdProject(t, 300)
	b.model = newModel(t, standin.Anthropic, standin.Say(doneText), standin.Say(doneText))
	env := claudeEnv(t, b)
	w.connectCLI(t, claudeCode, env, false)

	requireClaudeResult(t, runCLI(t, b.work, env, cliPath(t, claudeCode), "-p", needleTask, "--output-format", "json"))
	reqs := agentRequests(b.model)
	require.NotEmpty(t, reqs)
	first := reqs[0]
	require.True(t, first.Contains("# memhost project memory"), "the SessionStart hook gave the banner")
	require.False(t, first.Contains(taskSection), "the SessionStart hook knows no task")
	require.True(t, first.Contains(promptContext), "the prompt hook added its context")
	require.Equal(t, 1, strings.Count(first.Text(), needle), "the needle, once")

	var page struct {
		Sessions []struct {
			Key, Origin string
			Given       int
		}
	}
	w.api(t, http.MethodGet, "/api/v1/projects/"+url.PathEscape(b.project)+"/sessions", nil, &page)
	require.Len(t, page.Sessions, 1)
	require.Equal(t, "connected", page.Sessions[0].Origin)
	var detail struct {
		Memories []struct{ Text, Event, Channel string }
	}
	w.api(t, http.MethodGet, "/api/v1/projects/"+url.PathEscape(b.project)+"/sessions/"+page.Sessions[0].Key, nil, &detail)
	found := false
	for _, m := range detail.Memories {
		if m.Text == needle {
			found = m.Event == "given" && m.Channel == "prompt"
		}
	}
	require.True(t, found, "the record has the needle given through the prompt: %+v", detail.Memories)

	requireClaudeResult(t, runCLI(t, b.work, env, cliPath(t, claudeCode), "-p", unrelatedTask, "--output-format", "json"))
	reqs = agentRequests(b.model)
	second := reqs[len(reqs)-1]
	require.False(t, second.Contains(promptContext), "an unrelated prompt gets nothing")
	require.False(t, second.Contains("NEEDLE-"+b.sentinel))
	require.Empty(t, b.egress.seen())
	w.connectCLI(t, claudeCode, env, true)
}

// TestRunClaudePromptHookAddsWhatTheBannerHadNoRoomFor: memhost run's own prompt hook runs in
// the session it started (Claude Code's UserPromptSubmit, registered in the run's --settings)
// and adds the facts relevant to the prompt that the banner, at a small budget, had no room
// for: each relevant fact reaches the model once, through one or the other.
func TestRunClaudePromptHookAddsWhatTheBannerHadNoRoomFor(t *testing.T) {
	t.Parallel()
	b := setupOn(t, startHostWith(t, hostOptions{extra: journalEverySession + "banner_budget = 300\n"}), standin.Anthropic, standin.Say(doneText))
	w := newSpawnWorld(t, b)
	w.crowdProject(t, 100)
	var relevant []string
	for i, cause := range []string{"the session cookie expires at midnight UTC", "the login rate limiter is shared between tests",
		"the login page animation delays the submit button", "the login fixture user is deleted by another test",
		"the login test reuses a stale CSRF token", "the login redirect waits on a slow health check"} {
		fact := fmt.Sprintf("LOGIN-%d-%s: the login integration test is flaky because %s.", i, b.sentinel, cause)
		w.storeFact(t, fact)
		relevant = append(relevant, fact)
	}
	b.model = newModel(t, standin.Anthropic, standin.Say(doneText))
	requireClaudeResult(t, w.run(t, claudeCode, claudeEnv(t, b), "-p", needleTask, "--output-format", "json"))
	first := agentRequests(b.model)[0]
	text := first.Text()
	require.True(t, first.Contains(taskSection))
	require.True(t, first.Contains(promptContext), "the run's prompt hook added what the banner had no room for")
	for _, f := range relevant {
		require.LessOrEqual(t, strings.Count(text, f), 1, "never twice: %s", f)
	}
	given := 0
	for _, f := range relevant {
		given += strings.Count(text, f)
	}
	require.Greater(t, given, 1)
}

// TestConnectGeminiPromptHookBringsTheNeededFact: after memhost connect gemini, plain `gemini -p`
// gets the fact its prompt needs from the BeforeAgent hook (Gemini CLI 0.61's hook on each
// prompt, whose additionalContext joins the prompt; the prompt it receives opens with the
// SessionStart hook's banner, which is not what the user asked), once; an unrelated prompt gets
// nothing.
func TestConnectGeminiPromptHookBringsTheNeededFact(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Gemini, standin.Say(doneText))
	w := newSpawnWorld(t, b)
	needle, _ := w.crowdProject(t, 300)
	b.model = newModel(t, standin.Gemini, standin.Say(doneText), standin.Say(doneText))
	geminiSettings(t, b, nil)
	env := append(geminiRunEnv(t, b, b.model), "GEMINI_CLI_TRUST_WORKSPACE=true")
	w.connectCLI(t, geminiCLI, env, false)

	gr := runCLI(t, b.work, env, cliPath(t, geminiCLI), "-p", needleTask, "-o", "json")
	geminiResult(t, gr)
	reqs := agentRequests(b.model)
	require.NotEmpty(t, reqs)
	first := reqs[0]
	require.True(t, first.Contains(promptContext), "the BeforeAgent hook added its context; stderr:\n%s", gr.stderr)
	require.Equal(t, 1, strings.Count(first.Text(), needle), "the needle, once")

	geminiResult(t, runCLI(t, b.work, env, cliPath(t, geminiCLI), "-p", unrelatedTask, "-o", "json"))
	reqs = agentRequests(b.model)
	require.False(t, reqs[len(reqs)-1].Contains(promptContext), "an unrelated prompt gets nothing")
	require.Empty(t, b.egress.seen())
	w.connectCLI(t, geminiCLI, env, true)
}
