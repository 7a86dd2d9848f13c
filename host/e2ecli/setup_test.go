//go:build e2ecli

package e2ecli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/standin"
)

// doneText is the stand-in's last answer; each CLI prints it as its result.
const doneText = "Stored the fact in memhost."

// prompt is the user's one-shot request to every CLI.
const prompt = "Remember for this project: we install packages with pnpm."

// bundle is one CLI test's world: a memhost host with a project-bound token, a stand-in model
// scripted to store a fact through memhost's MCP, an egress recorder, an empty home and an
// empty project folder.
type bundle struct {
	host   *host
	model  *standin.Server
	egress *egress

	project, token string
	sentinel       string // stands in for the banner memhost injects
	fact           string // what the model stores through memory_store
	home, work     string
}

// setup builds the bundle for proto. The stand-in follows script, by default a memory_store
// call of the bundle's fact and then doneText.
func setup(t *testing.T, proto standin.Protocol, script ...standin.Turn) *bundle {
	t.Helper()
	return setupOn(t, startHost(t), proto, script...)
}

// setupOn is setup on a host the test started.
func setupOn(t *testing.T, h *host, proto standin.Protocol, script ...standin.Turn) *bundle {
	t.Helper()
	id := randomHex(6)
	b := &bundle{
		host:     h,
		egress:   startEgress(t),
		project:  "github.com/memhost-e2ecli/" + string(proto) + "-" + id,
		sentinel: "MEMHOST-SENTINEL-" + id,
		fact:     "e2ecli " + id + ": this project installs packages with pnpm, never npm or yarn.",
		home:     t.TempDir(),
		work:     t.TempDir(),
	}
	b.token = b.host.token(b.project, "e2ecli-"+string(proto))
	if len(script) == 0 {
		script = []standin.Turn{standin.CallTool("memory_store", map[string]any{"text": b.fact}), standin.Say(doneText)}
	}
	model, err := standin.New(proto, script...)
	require.NoError(t, err)
	require.NoError(t, model.Start())
	t.Cleanup(func() { require.NoError(t, model.Close()) })
	b.model = model
	return b
}

// banner is the context a test injects the way memhost will: it carries the sentinel.
func (b *bundle) banner() string {
	return "# memhost project brain\nGoal: " + b.sentinel + "\nUse the memhost MCP tools to save durable project facts.\n"
}

// apiKey is a fake credential for the stand-in: any value passes, none may look real.
func apiKey() string { return "standin-" + randomHex(8) }

// env is the whole environment of a CLI run: node on PATH, the isolated home, the egress
// recorder as proxy, MEMHOST_TOKEN for configs that read the token from the environment,
// and extra.
func (b *bundle) env(t *testing.T, extra ...string) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "the CLIs need node on PATH")
	env := []string{
		"PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + "/usr/local/bin:/usr/bin:/bin",
		"HOME=" + b.home, "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1",
		"MEMHOST_TOKEN=" + b.token,
	}
	return append(append(env, b.egress.env()...), extra...)
}

// write creates path (and its folders) with body.
func write(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
}

// hookScript writes an executable SessionStart hook (Claude Code's and Gemini CLI's shape) that
// injects the banner as additionalContext, and returns its path.
func (b *bundle) hookScript(t *testing.T) string {
	t.Helper()
	out, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "SessionStart", "additionalContext": b.banner(),
	}})
	require.NoError(t, err)
	require.NotContains(t, string(out), "'")
	path := filepath.Join(t.TempDir(), "session-start.sh")
	write(t, path, "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '"+string(out)+"'\n")
	require.NoError(t, os.Chmod(path, 0o700))
	return path
}

// requireSentinel asserts that a model request offering tools (the agent's own turn, not a
// side call) carried the banner's sentinel, that the run ended well and stayed offline.
func (b *bundle) requireSentinel(t *testing.T, run cliRun) standin.Request {
	t.Helper()
	require.Zero(t, run.exitCode, "stdout:\n%s\nstderr:\n%s", run.stdout, run.stderr)
	require.Empty(t, b.egress.seen(), "the CLI tried to reach the network")
	for _, r := range b.model.Requests() {
		if !r.Auxiliary && r.Contains(b.sentinel) {
			return r
		}
	}
	require.FailNow(t, "no model request carried the sentinel", "stderr:\n%s", run.stderr)
	return standin.Request{}
}

// prove asserts the round trip on one CLI: the banner's sentinel reached the model; the model's
// memory_store call went out under wantTool, the name the CLI offered it by; memhost stored
// the fact in the token's project; the call's result, naming the stored memory, came back in
// the CLI's next request; and nothing tried to leave loopback.
func (b *bundle) prove(t *testing.T, run cliRun, wantTool string) {
	t.Helper()
	b.requireSentinel(t, run)
	reqs := b.model.Requests()

	var call *standin.IssuedCall
	for _, c := range b.model.Calls() {
		if !c.Loader {
			call = &c
		}
	}
	require.NotNil(t, call, "the stand-in never called memory_store; tools offered: %v\nstderr:\n%s", lastTools(reqs), run.stderr)
	require.Equal(t, wantTool, call.Name)
	require.Contains(t, reqs[call.Request].Tools, wantTool)

	var stored *memory
	for _, m := range b.host.memories(b.token) {
		if m.Text == b.fact {
			stored = &m
		}
	}
	require.NotNil(t, stored, "the fact is not in memhost")
	require.Equal(t, b.project, stored.Project)
	require.Equal(t, "mcp", stored.Source)

	res, ok := b.model.ResultOf(call.ID)
	require.True(t, ok, "no later request carried the result of %s", call.ID)
	require.False(t, res.IsError, res.Content)
	require.Contains(t, res.Content, "memory "+stored.ID[len(stored.ID)-8:], "the model reads the memory's short id")
	next := nextModelRequest(reqs, call.Request)
	require.NotNil(t, next, "no model request followed the call")
	require.True(t, carries(*next, call.ID), "the request right after the call does not carry its result")
	if u := b.model.Unhandled(); len(u) > 0 {
		t.Logf("endpoints the stand-in does not serve (answered 404): %s", strings.Join(u, ", "))
	}
	t.Logf("%d model requests (%d auxiliary), run took %s", len(reqs), countAuxiliary(reqs), run.took.Round(10e6))
}

// nextModelRequest is the first model call after reqs[i] (token counts and probes skipped).
func nextModelRequest(reqs []standin.Request, i int) *standin.Request {
	for j := i + 1; j < len(reqs); j++ {
		if reqs[j].Tools != nil || reqs[j].Auxiliary {
			return &reqs[j]
		}
	}
	return nil
}

func carries(r standin.Request, callID string) bool {
	for _, res := range r.ToolResults {
		if res.CallID == callID {
			return true
		}
	}
	return false
}

func lastTools(reqs []standin.Request) []string {
	for i := len(reqs) - 1; i >= 0; i-- {
		if len(reqs[i].Tools) > 0 {
			return reqs[i].Tools
		}
	}
	return nil
}

func countAuxiliary(reqs []standin.Request) int {
	n := 0
	for _, r := range reqs {
		if r.Auxiliary {
			n++
		}
	}
	return n
}
