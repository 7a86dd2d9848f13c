package spawn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/host/internal/client/transcript"
	"github.com/memhost/memhost/host/internal/core/project"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/providers"
	"github.com/memhost/memhost/host/internal/wire"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/provider"
)

// Options describe one `memhost run`.
type Options struct {
	// CLI names the provider (`memhost run claude`): the plugin memhost-provider-<CLI>.
	CLI string
	// Args are the user's arguments for the CLI, passed on as given.
	Args []string
	// Dir is the working directory; "" means the current one.
	Dir string
	// Env is the CLI's environment before injection; nil means os.Environ().
	Env []string
	// Executable is the CLI to run; "" means the provider's command looked up on Env's PATH.
	Executable string
	// Stdin, Stdout and Stderr are the CLI's; nil means memhost run's own.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Warn receives memhost's one-line warnings; nil means Stderr.
	Warn io.Writer
	// PluginDirs and Checksums are where provider plugins are found, as for the host.
	PluginDirs []string
	Checksums  map[string]string
	// Host is the running host; Tokens grants access to it. Without either the CLI runs plain.
	Host   *Host
	Tokens Tokens
	// TaskRulesDir keeps the task rules each provider binary declared (a 0600 file per
	// binary, keyed by its path, size and modification time), so that the next run reads the
	// task while the plugin starts; "" keeps none, and the plugin reads every task.
	TaskRulesDir string
	// ScratchRoot holds the scratch directories; "" means DefaultScratchRoot().
	ScratchRoot string
	// Signals carries the signals to pass on to the CLI (see Signals).
	Signals <-chan os.Signal
	// Logger receives the provider plugin's log; nil logs its errors to Warn.
	Logger hclog.Logger
	// QuietUnder is how long a session must run to be journalled when it exits with code 0;
	// 0 means DefaultQuietUnder.
	QuietUnder time.Duration
	// PromptHook is the shell command of memhost's prompt hook (`memhost hook prompt --cli
	// NAME`), to which Run adds the session's key; "" gives the session no prompt hook
	// (brain.prompt_context is off).
	PromptHook string
	// Timeline, when not nil, records when the run reached each step (TimelineEnv); it is
	// written to TimelinePath once the CLI has started.
	Timeline     *Timeline
	TimelinePath string
}

// DefaultQuietUnder: a session that ends cleanly within 30 s did nothing worth recalling (a
// quick question, or a CLI started and quit), and "claude session ended after 3s with exit
// code 0." would only crowd the recent sessions out of the next banner. Whatever such a
// session stored is in memory anyway. A session that fails is journalled however short: the
// next agent should know the CLI crashed.
const DefaultQuietUnder = 30 * time.Second

// Result is how a run went.
type Result struct {
	// ExitCode is the CLI's exit status (128+N when signal N killed it), for memhost run to
	// exit with.
	ExitCode int
	// Overhead is the time from the start of Run until the CLI was started: what memhost adds
	// to the CLI's start.
	Overhead time.Duration
	// Injected says whether the CLI got memhost (banner and MCP server).
	Injected bool
	// Session is what the provider found out about the session.
	Session provider.Session
}

// teardownTimeout bounds the work after the CLI exits (Finish, journal, token revocation):
// the user waits for it.
const teardownTimeout = 10 * time.Second

// Run starts the CLI with memhost injected and waits for it; see the package documentation.
// Only a CLI that cannot be started (ExitCode 127 or 126) and an interrupt before it started
// (ctx done, 130) are errors; every failure of memhost itself is a warning, and the CLI runs
// plain.
func Run(ctx context.Context, o Options) (Result, error) {
	start := time.Now()
	o = o.withDefaults()
	r := &runner{o: o, env: envMap(o.Env), key: uuid.NewString()}
	defer r.close()

	exe, args, env := r.prepare(ctx)
	if err := ctx.Err(); err != nil {
		// Interrupted before the CLI started: the user changed their mind.
		return Result{ExitCode: exitInterrupted}, fmt.Errorf("interrupted before %s started: %w", r.command(), err)
	}
	if exe == "" {
		name := r.command()
		return Result{ExitCode: exitNotRun}, fmt.Errorf("%s: not found on PATH (install it, or name it with --bin)", name)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir, cmd.Env = r.dir, envList(env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Stdin, o.Stdout, o.Stderr
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		code := exitNotRun
		if !notFound(err) {
			code = exitNotRun - 1 // found but not runnable, as a shell says
		}
		return Result{ExitCode: code}, fmt.Errorf("start %s: %w", r.command(), err)
	}
	res := Result{Overhead: time.Since(start), Injected: r.handle != nil}
	o.Timeline.Mark(StepExec)
	if o.TimelinePath != "" {
		if err := o.Timeline.WriteFile(o.TimelinePath); err != nil {
			r.warn("%v", err)
		}
	}
	started := time.Now()
	if r.scratch != nil {
		if err := r.scratch.started(cmd.Process.Pid); err != nil {
			r.warn("%v", err)
		}
	}
	res.ExitCode = wait(cmd, o.Signals)
	res.Session = r.finish(ctx, res.ExitCode, started, time.Since(started))
	return res, nil
}

// rules is the cache of the providers' task rules.
func (o Options) rules() rulesCache { return rulesCache(o.TaskRulesDir) }

func (o Options) withDefaults() Options {
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Warn == nil {
		o.Warn = o.Stderr
	}
	if o.ScratchRoot == "" {
		o.ScratchRoot = DefaultScratchRoot()
	}
	if o.Logger == nil {
		o.Logger = hclog.New(&hclog.LoggerOptions{Name: "memhost-provider-" + o.CLI, Level: hclog.Error, Output: o.Warn})
	}
	return o
}

// runner is one Run's state between its steps.
type runner struct {
	o       Options
	env     map[string]string
	dir     string
	project string
	info    provider.Info

	sup     *plugins.Supervisor
	handle  *providers.Handle // set when the CLI got memhost
	token   string
	release func(context.Context) error
	scratch *scratch
	spawn   provider.Spawn
	plan    provider.Plan
	// key names the session in its record: the banner, the MCP entry's header and the
	// prompt hook carry it, and the session's end closes it.
	key string
}

// maxWarning bounds a warning: it is one line on the user's terminal.
const maxWarning = 400

func (r *runner) warn(format string, args ...any) {
	fmt.Fprintf(r.o.Warn, "memhost: %s\n", plugins.OneLine(fmt.Sprintf(format, args...), maxWarning))
}

// command is the CLI's command name: the provider's, else the CLI's own name.
func (r *runner) command() string {
	if r.o.Executable != "" {
		return r.o.Executable
	}
	if r.info.Executable != "" {
		return r.info.Executable
	}
	return r.o.CLI
}

// prepare returns how to start the CLI: with memhost injected when everything it needs is
// there, else plain after a warning. exe is "" when the CLI cannot be found.
func (r *runner) prepare(ctx context.Context) (exe string, args []string, env map[string]string) {
	// Marks an outer memhost run left in the environment are not this session's.
	for _, mark := range []string{RunSessionEnv, RunBannerEnv, RunPromptEnv, SessionKeyEnv} {
		delete(r.env, mark)
	}
	args, env = r.o.Args, r.env
	dir, err := r.workingDir()
	if err == nil {
		r.dir = dir
		err = r.inject(ctx)
	}
	if err != nil {
		// A missing CLI, or an interrupt, Run reports itself.
		if !errors.Is(err, exec.ErrNotFound) && ctx.Err() == nil {
			r.warn("%v; starting %s without memory", err, r.o.CLI)
		}
		r.undo()
		exe, err := lookPath(r.command(), r.env["PATH"])
		if err != nil {
			return "", nil, nil
		}
		return exe, args, env
	}
	env = maps.Clone(r.env)
	for _, k := range r.plan.UnsetEnv {
		delete(env, k)
	}
	maps.Copy(env, r.plan.SetEnv)
	env[RunSessionEnv] = r.o.CLI
	env[SessionKeyEnv] = r.key
	if r.plan.DeliversBanner && r.spawn.Banner != "" {
		env[RunBannerEnv] = r.o.CLI
	} else {
		delete(env, RunBannerEnv)
	}
	if r.plan.DeliversPromptHook && r.spawn.PromptHook != "" {
		env[RunPromptEnv] = r.o.CLI
	} else {
		delete(env, RunPromptEnv)
	}
	return r.spawn.Executable, r.plan.Args, env
}

func (r *runner) workingDir() (string, error) {
	dir := r.o.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	return filepath.Abs(dir)
}

// inject gets everything the CLI needs from memhost, asks the provider how to deliver it and
// puts the plan's files in place. The provider plugin starts while the token and the banner
// are fetched: the two are most of memhost's share of the CLI's start.
func (r *runner) inject(ctx context.Context) error {
	switch {
	case r.o.Host == nil:
		return errors.New("no host configured")
	case r.o.Tokens == nil:
		return errors.New("no token: configure database.url or set MEMHOST_TOKEN")
	}
	if err := openRoot(r.o.ScratchRoot); err != nil {
		return err
	}
	sweep(r.o.ScratchRoot)
	var err error
	if r.scratch, err = newScratch(r.o.ScratchRoot, r.o.CLI); err != nil {
		return err
	}
	banner, err := r.bannerBeside(ctx)
	r.o.Timeline.Mark(StepBanner)
	if err != nil {
		return err
	}
	exe := r.o.Executable
	if exe == "" {
		exe = r.info.Executable
	}
	if exe, err = lookPath(exe, r.env["PATH"]); err != nil {
		return err
	}
	r.spawn = provider.Spawn{
		CLI: r.o.CLI, Executable: exe, Args: r.o.Args, Dir: r.dir, Env: providerEnv(r.env),
		Banner: banner, Project: r.project, ScratchDir: r.scratch.dir,
		MCP: &provider.MCPServer{Name: provider.ServerName, URL: r.o.Host.MCPURL(), Token: r.token,
			Headers: map[string]string{provider.SessionHeader: r.key}},
	}
	if r.o.PromptHook != "" {
		r.spawn.PromptHook = r.o.PromptHook + " --session " + r.key
	}
	if r.plan, err = r.handle.Prepare(ctx, r.spawn); err != nil {
		return err
	}
	err = r.scratch.apply(r.plan)
	r.o.Timeline.Mark(StepPlan)
	return err
}

// bannerBeside fetches the banner while the provider plugin starts: the two are most of
// memhost's share of the CLI's start. When the user's arguments may carry a task, the banner
// is led by it: read in-process by the task rules the plugin's binary declared at an earlier
// run (rulesCache), so the banner is fetched beside the plugin's start; without such rules
// the plugin must say what the task is (provider.Tasker) before the banner is asked for, the
// project and its token being had meanwhile. The started plugin's own declaration is what
// counts: rules it no longer declares are replaced, and the task read again.
func (r *runner) bannerBeside(ctx context.Context) (string, error) {
	cand, err := r.candidate()
	if err != nil {
		return "", err
	}
	bin := statBinary(cand.Path)
	launched := make(chan error, 1)
	go func() { launched <- r.launch(ctx, cand) }()
	kept := r.o.rules().load(bin)
	if len(r.o.Args) > 0 && kept == nil {
		err := r.grant(ctx)
		if lerr := <-launched; err == nil {
			err = lerr
		}
		if err != nil {
			return "", err
		}
		r.keepRules(bin, kept)
		return r.banner(ctx, r.pluginTask(ctx))
	}
	task := ""
	if kept != nil {
		task, _ = kept.Task(ctx, r.o.Args)
	}
	r.o.Timeline.Mark(StepTask)
	banner, err := r.banner(ctx, task)
	if lerr := <-launched; err == nil {
		err = lerr
	}
	if err != nil {
		return "", err
	}
	if r.keepRules(bin, kept) || len(r.o.Args) == 0 {
		return banner, nil
	}
	// The plugin declares other rules than were kept: the task is what it reads.
	if t := r.pluginTask(ctx); t != task {
		return r.banner(ctx, t)
	}
	return banner, nil
}

// keepRules keeps the task rules the started plugin declared for the next run, unless they
// are those kept; it reports whether they were.
func (r *runner) keepRules(bin binaryStat, kept *provider.TaskRules) bool {
	declared := r.info.Task
	if kept != nil && declared != nil && kept.Equal(*declared) {
		return true
	}
	if kept != nil || declared != nil {
		r.o.rules().keep(bin, declared)
	}
	return false
}

// pluginTask asks the started plugin for the task the user's arguments carry.
func (r *runner) pluginTask(ctx context.Context) string {
	task, err := r.handle.Task(ctx, r.o.Args)
	r.o.Timeline.Mark(StepTask)
	if err != nil {
		r.warn("the %s provider could not read the task: %v", r.o.CLI, err)
	}
	return task
}

// grant resolves the project and gets a token for it.
func (r *runner) grant(ctx context.Context) error {
	id, err := project.Resolve(r.dir)
	if err != nil {
		return err
	}
	r.project = id.Key
	r.token, r.release, err = r.o.Tokens.Grant(ctx, r.project, r.o.CLI)
	r.o.Timeline.Mark(StepToken)
	return err
}

// banner fetches the project's banner for the session, led by the facts relevant to task when
// there is one, getting the project and a token first unless grant did. A kept token the host
// refuses (revoked, or the database was reset) is forgotten and a fresh one minted.
func (r *runner) banner(ctx context.Context, task string) (string, error) {
	if r.release == nil {
		if err := r.grant(ctx); err != nil {
			return "", err
		}
	}
	req := wire.BannerRequest{CLI: r.o.CLI, Task: task, Session: &wire.SessionRef{Key: r.key, CLI: r.o.CLI, Origin: wire.OriginRun}}
	for attempt := 0; ; attempt++ {
		banner, err := r.o.Host.Banner(ctx, r.token, r.project, req)
		f, forgets := r.o.Tokens.(Forgetter)
		if !errors.Is(err, ErrRefused) || !forgets || attempt > 0 {
			return banner, err
		}
		f.Forget(r.project)
		_ = r.release(ctx)
		if r.token, r.release, err = r.o.Tokens.Grant(ctx, r.project, r.o.CLI); err != nil {
			return "", err
		}
	}
}

// candidate finds the CLI's provider plugin by its file name memhost-provider-<CLI>.
func (r *runner) candidate() (plugins.Candidate, error) {
	cands, _ := plugins.Discover(r.o.PluginDirs, r.o.Checksums)
	cands = slices.DeleteFunc(plugins.OfKind(cands, plugin.KindProvider), func(c plugins.Candidate) bool { return c.Name != r.o.CLI })
	if len(cands) == 0 {
		return plugins.Candidate{}, fmt.Errorf("no provider plugin memhost-%s-%s in %s", plugin.KindProvider, r.o.CLI, strings.Join(r.o.PluginDirs, ", "))
	}
	return cands[0], nil
}

// launch starts the CLI's provider plugin.
func (r *runner) launch(ctx context.Context, cand plugins.Candidate) error {
	r.sup = plugins.New(plugins.Config{
		Adapters: []plugins.Adapter{providers.Adapter{}}, HealthInterval: -1, Logger: r.o.Logger,
		SocketDir: r.scratch.sockets(),
	})
	if err := r.sup.Start(ctx, []plugins.Candidate{cand}); err != nil {
		return fmt.Errorf("start the %s provider: %w", r.o.CLI, err)
	}
	h, err := providers.Find(r.sup, r.o.CLI)
	if err != nil {
		return err
	}
	r.handle, r.info = h, h.Info()
	r.o.Timeline.Mark(StepPlugin)
	return nil
}

// providerEnv is the environment a provider sees: the user's, without memhost's own settings
// and credentials (MEMHOST_*), which no provider needs.
func providerEnv(env map[string]string) map[string]string {
	out := maps.Clone(env)
	maps.DeleteFunc(out, func(k, _ string) bool { return strings.HasPrefix(k, "MEMHOST_") })
	return out
}

// passthrough says whether the plan adds nothing to the user's command (a management
// command such as `claude mcp list`): such a run is no session worth a journal entry.
func (r *runner) passthrough() bool {
	return slices.Equal(r.plan.Args, r.spawn.Args) && len(r.plan.SetEnv) == 0 && len(r.plan.Files) == 0
}

// finish tells the provider the session ended and records it in the journal unless it did
// nothing (see DefaultQuietUnder).
func (r *runner) finish(ctx context.Context, code int, started time.Time, ran time.Duration) provider.Session {
	if r.handle == nil || r.passthrough() {
		return provider.Session{}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardownTimeout)
	defer cancel()
	sess, err := r.handle.Finish(ctx, provider.Ended{Spawn: r.spawn, State: r.plan.State, ExitCode: code, StartedAt: started, Duration: ran})
	if err != nil {
		r.warn("%v", err)
	}
	ts := transcript.Session{CLI: r.o.CLI, Path: sess.Transcript, ID: sess.ID, Dir: r.dir, Start: started, End: started.Add(ran)}
	// The provider reads its CLI's transcript, where it lives, once for the record and the
	// summary; only what the isolation checks let through goes to the host.
	turns, terr := transcript.Fetch(ctx, r.handle, ts)
	ref := wire.SessionRef{Key: r.key, CLI: r.o.CLI, Origin: wire.OriginRun}
	if err := recordEnd(ctx, r.o.Host, r.token, r.project, ref, ts, fetched(turns, terr)); err != nil {
		r.warn("%v", err)
	}
	if quiet(code, ran, r.o.QuietUnder) {
		return sess
	}
	entry := JournalEntry{
		Agent:   r.o.CLI,
		Session: sess.ID,
		Text:    fmt.Sprintf("%s session ended after %s with exit code %d.", r.o.CLI, ran.Round(time.Second), code),
	}
	withTranscript(&entry, turns, terr)
	if err := r.o.Host.Journal(ctx, r.token, r.project, entry); err != nil {
		r.warn("%v", err)
	}
	return sess
}

// undo drops what inject set up when the CLI is to run plain.
func (r *runner) undo() {
	r.handle = nil
	r.close()
}

// close releases the token, removes the scratch directory and stops the plugin; each once.
func (r *runner) close() {
	ctx, cancel := context.WithTimeout(context.Background(), teardownTimeout)
	defer cancel()
	if r.release != nil {
		if err := r.release(ctx); err != nil {
			r.warn("%v", err)
		}
		r.release = nil
	}
	if r.scratch != nil {
		if err := r.scratch.remove(); err != nil {
			r.warn("%v", err)
		}
		r.scratch = nil
	}
	if r.sup != nil {
		_ = r.sup.Shutdown(ctx)
		r.sup = nil
	}
}
