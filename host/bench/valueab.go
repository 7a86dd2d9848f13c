package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain/banner"
	"github.com/memhost/memhost/host/internal/core/project"
	"github.com/memhost/memhost/host/internal/testkit/standin"
)

// The value A/B (issue 28, docs/value.md): the same scripted tasks on the real Claude Code,
// once with memory (`memhost run claude -- -p TASK`) and once without (`claude -p TASK`),
// against a stand-in model whose policy is an agent's: answer as soon as the fact the task
// needs is in its context, else open the project's files one by one (Claude Code's own Read
// tool, on real files) until one holds it. Per task it reports the model calls, the tool
// calls and the input tokens (what each model call was sent, counted with the banner's
// tokenizer over the request's text, summed), side by side. The stand-in shows the mechanics:
// a real model reads more, explores less predictably and answers longer (docs/value.md).

// valueABHeader describes the A/B round in the report's "What is measured" list.
const valueABHeader = `- **Value A/B**: four scripted tasks on the real Claude Code (the pinned version ` + "`make e2e-cli`" + `
  installs), each run with memory (` + "`memhost run claude -- -p TASK`" + `: the task-scoped banner, the
  MCP server, the prompt hook) and without (` + "`claude -p TASK`" + `), against a stand-in model whose
  policy is an agent's: answer as soon as the fact the task needs is in what it was sent, else
  open the project's files one by one with Claude Code's Read tool. Per task: model calls, tool
  calls and input tokens (each request's text counted with the banner's tokenizer, summed).
`

// abTask is one scripted task: what the user asks, the fact it needs (in memory, and in one
// file of the project), and the files an agent without memory opens before that one.
type abTask struct {
	name, task, fact, file string
	decoys                 []string
}

// abTasks are tasks on the quality set's imaginary project (testdata/quality.json), whose facts
// memory holds.
var abTasks = []abTask{
	{"timezone", "the voyage ETA assertions fail by hours in the integration tests; fix them",
		"Integration tests need TZ=UTC; with a local timezone the voyage ETA assertions fail by hours.", "docs/testing.md",
		[]string{"README.md", "CONTRIBUTING.md", "docs/architecture.md"}},
	{"migrations", "write a new SQL migration in db/migrations for the berth table",
		"Database migrations are plain SQL files in db/migrations named NNNN_description.sql, applied with goose.", "db/README.md",
		[]string{"README.md", "docs/architecture.md"}},
	{"port", "the dev stack fails with EADDRINUSE 5432 when I start it",
		"`EADDRINUSE: 5432` when starting the dev stack means a system Postgres is already running; stop it with `sudo systemctl stop postgresql`.", "docs/troubleshooting.md",
		[]string{"README.md", "CONTRIBUTING.md", "docs/architecture.md", "docs/testing.md"}},
	{"proto", "I edited a .proto file under api/proto for shipments; regenerate the Go code",
		"Run `make generate` after editing any .proto file under api/proto; the generated Go code is committed.", "api/README.md",
		[]string{"README.md", "CONTRIBUTING.md"}},
}

// abFiller is the synthetic facts the project holds besides the quality set's, so the banner
// must choose.
const abFiller = 200

// ABRun is one run of one task.
type ABRun struct {
	ModelCalls, ToolCalls int
	// InputTokens sums the tokens each model call was sent.
	InputTokens int
}

// ABTask is one task's two runs.
type ABTask struct {
	Name, Task    string
	With, Without ABRun
	// Given and Cited are what memhost's record of the run with memory says the session was
	// given (its banner and prompt hooks) and cited.
	Given, Cited int
}

// ValueAB is the A/B round.
type ValueAB struct {
	CLI   string
	Facts int
	Tasks []ABTask
}

// ABOptions are what the A/B round needs: a database it may create a schema in, the memhost
// binary, a folder holding the embedder and the provider plugins, Claude Code and the quality
// set.
type ABOptions struct {
	DatabaseURL, HostPath, PluginDir, Claude, QualityPath string
	Seed                                                  uint64
	Progress                                              io.Writer
}

// measureValueAB runs the A/B round when cfg names a Claude Code binary.
func measureValueAB(ctx context.Context, cfg Config) (*ValueAB, error) {
	if cfg.ValueClaude == "" {
		return nil, nil
	}
	v, err := RunValueAB(ctx, ABOptions{DatabaseURL: cfg.DatabaseURL, HostPath: cfg.HostPath, PluginDir: filepath.Dir(cfg.PluginPath),
		Claude: cfg.ValueClaude, QualityPath: cfg.QualityPath, Seed: cfg.Seed, Progress: cfg.Progress})
	return &v, err
}

// RunValueAB starts a host on a fresh schema, gives the quality set's project its facts and
// abFiller synthetic ones, and runs every task with memory and without.
func RunValueAB(ctx context.Context, o ABOptions) (ValueAB, error) {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	p := progress{w: o.Progress, start: time.Now()}
	set, err := LoadQualitySet(o.QualityPath)
	if err != nil {
		return ValueAB{}, err
	}
	pool, drop, err := freshSchema(ctx, o.DatabaseURL, "bench_value")
	if err != nil {
		return ValueAB{}, err
	}
	defer drop()
	dir, err := os.MkdirTemp("", "memhost-bench-value-")
	if err != nil {
		return ValueAB{}, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	h, err := startHost(ctx, o.HostPath, withSearchPath(o.DatabaseURL, "bench_value"), o.PluginDir, dir)
	if err != nil {
		return ValueAB{}, err
	}
	defer h.stop()
	work := filepath.Join(dir, "harbormaster")
	if err := writeABProject(work); err != nil {
		return ValueAB{}, err
	}
	id, err := project.Resolve(work)
	if err != nil {
		return ValueAB{}, err
	}
	admin, _, err := auth.NewTokens(pool).Create(ctx, auth.CreateToken{Name: "bench", Scopes: []auth.Scope{auth.ScopeAdmin}})
	if err != nil {
		return ValueAB{}, err
	}
	api := abAPI{base: h.url, token: admin}
	texts := make([]string, 0, len(set.Facts)+abFiller)
	for _, f := range set.Facts {
		texts = append(texts, f.Text)
	}
	for _, f := range NewCorpus(o.Seed + 4).Take(abFiller) {
		texts = append(texts, f.Text)
	}
	ids := map[string]string{}
	for _, t := range texts {
		var stored struct {
			Memory struct{ ID string } `json:"memory"`
		}
		if err := api.call(ctx, http.MethodPost, "/api/v1/memories", map[string]string{"text": t, "project": id.Key}, &stored); err != nil {
			return ValueAB{}, err
		}
		ids[t] = stored.Memory.ID
	}
	out := ValueAB{CLI: "claude", Facts: len(texts)}
	run := abRunner{claude: o.Claude, host: o.HostPath, config: filepath.Join(dir, "memhost.toml"), dir: dir, work: work}
	for _, t := range abTasks {
		full, ok := ids[t.fact]
		if !ok {
			return ValueAB{}, fmt.Errorf("value A/B: task %s needs a fact memory does not hold", t.name)
		}
		cite := full[len(full)-8:]
		with, err := run.task(ctx, t, cite, true)
		if err != nil {
			return ValueAB{}, fmt.Errorf("value A/B %s with memory: %w", t.name, err)
		}
		without, err := run.task(ctx, t, cite, false)
		if err != nil {
			return ValueAB{}, fmt.Errorf("value A/B %s without memory: %w", t.name, err)
		}
		r := ABTask{Name: t.name, Task: t.task, With: with, Without: without}
		var page struct {
			Sessions []struct{ Given, Cited int }
		}
		if err := api.call(ctx, http.MethodGet, "/api/v1/projects/"+url.PathEscape(id.Key)+"/sessions?limit=1", nil, &page); err != nil {
			return ValueAB{}, err
		}
		if len(page.Sessions) > 0 {
			r.Given, r.Cited = page.Sessions[0].Given, page.Sessions[0].Cited
		}
		p.logf("value A/B %s: with memory %d calls, %d tools, %d tokens; without %d calls, %d tools, %d tokens",
			t.name, with.ModelCalls, with.ToolCalls, with.InputTokens, without.ModelCalls, without.ToolCalls, without.InputTokens)
		out.Tasks = append(out.Tasks, r)
	}
	return out, nil
}

// abRunner runs tasks on Claude Code in the project, with memhost run or without.
type abRunner struct{ claude, host, config, dir, work string }

// task runs t once on Claude Code against a fresh stand-in, with memory or without; an answer
// cites the fact's short id.
func (a abRunner) task(ctx context.Context, t abTask, cite string, memory bool) (ABRun, error) {
	dir, work := a.dir, a.work
	var script []standin.Turn
	for _, f := range append(slices.Clone(t.decoys), t.file) {
		script = append(script, standin.CallTool("Read", map[string]string{"file_path": filepath.Join(work, f)}))
	}
	model, err := standin.New(standin.Anthropic, script...)
	if err != nil {
		return ABRun{}, err
	}
	// The agent answers as soon as the fact is in what it was sent: the banner, a prompt's
	// context or a file it read.
	model.When(t.fact, standin.Say("Done, as the project's notes say. Memory used: ["+cite+"]"))
	if err := model.Start(); err != nil {
		return ABRun{}, err
	}
	defer func() { _ = model.Close() }()
	home := filepath.Join(dir, "home-"+t.name+map[bool]string{true: "-with", false: "-without"}[memory])
	if err := os.MkdirAll(home, 0o700); err != nil {
		return ABRun{}, err
	}
	env := []string{"PATH=" + abPath(), "HOME=" + home, "TMPDIR=" + dir, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"ANTHROPIC_BASE_URL=" + model.URL(), "ANTHROPIC_API_KEY=standin", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "LANG=C.UTF-8", "TERM=dumb"}
	args := []string{"-p", t.task, "--allowedTools", "Read", "--output-format", "json"}
	argv := append([]string{a.claude}, args...)
	if memory {
		argv = append([]string{a.host, "run", "--config", a.config, "--bin", a.claude, "claude", "--"}, args...)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = work, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		return ABRun{}, fmt.Errorf("%v: %s%s", err, out, stderr.String())
	}
	if memory && strings.Contains(stderr.String(), "memhost: ") {
		return ABRun{}, fmt.Errorf("memhost run warned: %s", stderr.String())
	}
	var r ABRun
	for _, req := range model.Requests() {
		if req.Auxiliary {
			continue
		}
		r.ModelCalls++
		r.InputTokens += banner.CountTokens(req.Text())
	}
	for _, c := range model.Calls() {
		if !c.Loader {
			r.ToolCalls++
		}
	}
	return r, nil
}

// abPath is the PATH of a run: node's folder (Claude Code's native binary needs none, its
// scripts do) and the system's.
func abPath() string {
	path := "/usr/local/bin:/usr/bin:/bin"
	if node, err := exec.LookPath("node"); err == nil {
		path = filepath.Dir(node) + ":" + path
	}
	return path
}

// writeABProject writes the imaginary project's files: the decoys an agent opens first, each a
// page of plausible text, and the files that hold the tasks' facts.
func writeABProject(work string) error {
	page := func(title string, lines ...string) string {
		var b strings.Builder
		b.WriteString("# " + title + "\n\n")
		for range 6 {
			for _, l := range lines {
				b.WriteString(l + "\n")
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	files := map[string]string{
		"README.md": page("harbormaster", "Harbormaster schedules container ships into berths and tracks their voyages.",
			"The Go API server and the Next.js console live in one repository; see CONTRIBUTING.md to start."),
		"CONTRIBUTING.md": page("Contributing", "Open an issue before a large change, keep pull requests small, and write a changelog entry.",
			"Reviews need one approval from a code owner; CI must be green."),
		"docs/architecture.md": page("Architecture", "The scheduler assigns berths from a priority queue fed by the voyage planner.",
			"Events flow through NATS; the ledger service keeps the billing history."),
	}
	for _, t := range abTasks {
		files[t.file] = page(strings.TrimSuffix(filepath.Base(t.file), ".md"), "Notes for maintainers.", t.fact)
	}
	for name, body := range files {
		path := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://github.com/harbormaster/harbormaster.git"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
	}
	return nil
}

// abAPI calls the bench host's REST API.
type abAPI struct{ base, token string }

func (a abAPI) call(ctx context.Context, method, path string, body, out any) error {
	var rd *bytes.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// RenderValueAB is the A/B round's report alone (memhost-bench -only-value): its section and
// what it measures.
func RenderValueAB(v ValueAB) string {
	var b strings.Builder
	b.WriteString("# memhost value A/B\n\nWhat is measured:\n\n" + valueABHeader)
	renderValueAB(&b, &v, func(string, ...any) {})
	return b.String()
}

// renderValueAB writes the A/B round's section of the report.
func renderValueAB(b *strings.Builder, v *ValueAB, note func(string, ...any)) {
	if v == nil {
		note("Value A/B: skipped (no Claude Code binary: run `make e2e-cli` once to install the pinned one, or pass -value-claude).")
		return
	}
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Value A/B: the same tasks on the real Claude Code, with memory and without (stand-in model, project of %d facts)\n\n", v.Facts)
	w("| task | model calls with / without | tool calls with / without | input tokens with / without | memories given / cited |\n| --- | --- | --- | --- | --- |\n")
	var with, without ABRun
	for _, t := range v.Tasks {
		w("| %s | %d / %d | %d / %d | %d / %d | %d / %d |\n", t.Name, t.With.ModelCalls, t.Without.ModelCalls, t.With.ToolCalls, t.Without.ToolCalls,
			t.With.InputTokens, t.Without.InputTokens, t.Given, t.Cited)
		with.ModelCalls, with.ToolCalls, with.InputTokens = with.ModelCalls+t.With.ModelCalls, with.ToolCalls+t.With.ToolCalls, with.InputTokens+t.With.InputTokens
		without.ModelCalls, without.ToolCalls, without.InputTokens = without.ModelCalls+t.Without.ModelCalls, without.ToolCalls+t.Without.ToolCalls, without.InputTokens+t.Without.InputTokens
	}
	w("| **all** | %d / %d | %d / %d | %d / %d | |\n", with.ModelCalls, without.ModelCalls, with.ToolCalls, without.ToolCalls, with.InputTokens, without.InputTokens)
	w("\nThe stand-in answers as soon as the fact a task needs is in what it was sent, and otherwise opens the project's files one by one; it shows the mechanics, not a real model's behaviour (docs/value.md).\n")
}
