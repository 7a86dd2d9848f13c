package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/client/connect"
	"github.com/memhost/memhost/host/internal/client/hostclient"
	"github.com/memhost/memhost/host/internal/client/spawn"
	"github.com/memhost/memhost/host/internal/client/transcript"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/project"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/plugins/providers"
	"github.com/memhost/memhost/host/internal/wire"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/worker"
)

func connectCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "connect CLI",
		Short: "Register memhost in a CLI's own configuration (claude, codex, gemini), so starting it directly uses the project's memory",
		Long: `Register memhost's MCP server, under the name memhost, in the user-level configuration of
an agent CLI, and for Claude Code and Gemini CLI a SessionStart hook that gives every session
the project's banner (memhost hook session-start). Plain claude, codex and gemini then work
with the project's memory without memhost run.

What to change is asked of the CLI's provider plugin (memhost-provider-CLI in the plugin
folders), which knows the CLI's files and commands; a provider built before it could answer
is refused with a request to rebuild it.

The server is a stdio one: the CLI starts memhost mcp (this binary, with MEMHOST_CONFIG set to
this configuration) in the session's directory, and it forwards to the running host with a
token bound to that directory's project. No token is written into any CLI's configuration:
memhost mcp and the hook mint one per project through database.url, kept in the user's 0600
cache, as memhost run does.

It shows the commands it will run and a diff of every file it edits (any token in them
masked), and asks (or --yes). Each file is backed up first; connecting again changes nothing;
--undo takes it all out again, restoring each file byte for byte when nothing else changed it
since, and revokes the token an earlier memhost connect registered.

Each prompt the user submits gets the project's facts relevant to it through the CLI's prompt
hook (memhost hook prompt): UserPromptSubmit for Claude Code and Codex, BeforeAgent for Gemini
CLI; brain.prompt_context = false turns it off on the host. Codex runs a hook only after the user
has reviewed and trusted it in Codex, which memhost never bypasses; its banner comes from
memhost's MCP server instructions, which tell its model to load the project's context
(memory_load_context) at the start of a session.`,
		Example: `  memhost connect claude
  memhost connect --undo claude
  memhost connect gemini --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			undo, _ := cmd.Flags().GetBool("undo")
			o, closeFn, err := connectOptions(cmd, cfg, args[0], undo)
			if err != nil {
				return err
			}
			defer closeFn()
			if undo {
				return connect.Undo(cmd.Context(), o)
			}
			return connect.Connect(cmd.Context(), o)
		},
	}
	c.Flags().Bool("undo", false, "take memhost out of the CLI's configuration again")
	c.Flags().BoolP("yes", "y", false, "apply without asking")
	c.Flags().String("bin", "", "the CLI's executable (default: its name on PATH)")
	return c
}

// connectOptions are the options of connecting cli; closeFn stops its provider plugin and
// releases the database, opened only to revoke the token an earlier memhost connect
// registered.
func connectOptions(cmd *cobra.Command, cfg *config.Config, cli string, undo bool) (connect.Options, func(), error) {
	var planner connect.Planner
	var executable string
	handle, stop, err := startProvider(cmd.Context(), cfg, cli)
	switch {
	case err == nil:
		planner, executable = handle, handle.Info().Executable
	case undo:
		// Files still as connect left them are restored without the provider; it is asked
		// only for a file changed since, and then this is the answer.
		planner, stop = unavailablePlanner{err}, func() {}
	default:
		return connect.Options{}, nil, err
	}
	o, closeFn, err := connectOptionsWith(cmd, cfg, cli, planner, executable)
	if err != nil {
		stop()
		return o, nil, err
	}
	return o, func() { closeFn(); stop() }, nil
}

// startProvider starts cli's provider plugin, which knows the CLI's files and commands; stop
// shuts it down.
func startProvider(ctx context.Context, cfg *config.Config, cli string) (*providers.Handle, func(), error) {
	sup, names, stop := startProviders(ctx, cfg, cli)
	if len(names) == 0 {
		stop()
		return nil, nil, fmt.Errorf("no provider plugin memhost-%s-%s in %s: memhost connect asks the CLI's provider what to change", plugin.KindProvider, cli, strings.Join(pluginDirs(cfg), ", "))
	}
	h, err := providers.Find(sup, cli)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return h, stop, nil
}

// unavailablePlanner stands for a provider that could not be started.
type unavailablePlanner struct{ err error }

func (u unavailablePlanner) Connect(context.Context, provider.ConnectRequest) (provider.Connection, error) {
	return provider.Connection{}, u.err
}

func connectOptionsWith(cmd *cobra.Command, cfg *config.Config, cli string, planner connect.Planner, executable string) (connect.Options, func(), error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return connect.Options{}, nil, fmt.Errorf("find the memhost binary for the CLI to start: %w", err)
	}
	cfgPath := cfg.Path()
	if cfgPath != "" {
		if cfgPath, err = filepath.Abs(cfgPath); err != nil {
			return connect.Options{}, nil, err
		}
	}
	stateRoot, err := os.UserConfigDir()
	if err != nil {
		return connect.Options{}, nil, fmt.Errorf("find the user's configuration folder for connect's backups: %w", err)
	}
	bin, _ := cmd.Flags().GetString("bin")
	if bin == "" {
		bin = executable
	}
	yes, _ := cmd.Flags().GetBool("yes")
	o := connect.Options{
		CLI:        cli,
		Provider:   planner,
		Env:        environ(),
		Executable: bin,
		Hook:       connect.HookCommand(self, cfgPath, cli),
		Memhost:    self,
		Config:     cfgPath,
		StateDir:   filepath.Join(stateRoot, "memhost", "connect"),
		Yes:        yes,
		In:         cmd.InOrStdin(),
		Out:        cmd.OutOrStdout(),
	}
	if cfg.Database.URL == "" {
		return o, func() {}, nil
	}
	var pool *pgxpool.Pool
	o.Revoke = func(ctx context.Context, id string) error {
		tid, err := uuid.Parse(id)
		if err != nil {
			return fmt.Errorf("token id %q: %w", id, err)
		}
		if pool == nil {
			if pool, err = server.Connect(ctx, cfg); err != nil {
				return err
			}
		}
		return auth.NewTokens(pool).Revoke(ctx, tid)
	}
	return o, func() {
		if pool != nil {
			pool.Close()
		}
	}, nil
}

func environ() map[string]string {
	m := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

func hookCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "hook",
		Short: "Commands the CLIs run as hooks (memhost connect registers them)",
	}
	start := &cobra.Command{
		Use:   "session-start --cli NAME",
		Short: "Print the project's banner as a SessionStart hook's output (Claude Code, Gemini CLI)",
		Long: `Print the banner of the project the session starts in, in the shape Claude Code and Gemini
CLI inject into the session: {"hookSpecificOutput":{"hookEventName":"SessionStart",
"additionalContext":"..."}}. The project is that of the cwd in the hook's input on stdin,
else of the current directory. In a session memhost run started and gave the banner, it prints
nothing: the session gets the banner once. A hook must never keep the CLI from starting: when
memhost cannot give a banner, it says why on stderr, prints nothing and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cli, _ := cmd.Flags().GetString("cli")
			switch {
			case os.Getenv(worker.RunMarkerEnv) != "":
				return nil // a worker plugin's CLI run: no banner, no recursion into memory
			case spawn.MarkedByRun(os.Getenv, spawn.RunBannerEnv, cli):
				return nil // memhost run gave this session the banner already: once is enough
			}
			out, err := sessionStart(cmd, cli)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "memhost: no project banner for this session: %v\n", err)
				return nil
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	start.Flags().String("cli", "", "the CLI running the hook: claude or gemini (tool names are written as it shows them)")
	start.Flags().String("host", "", "the running host's URL (default http://<server.listen>)")
	addSpawnTokenFlags(start)
	c.AddCommand(start, sessionEndCmd(), promptHookCmd())
	return c
}

func sessionEndCmd() *cobra.Command {
	end := &cobra.Command{
		Use:   "session-end --cli NAME",
		Short: "Journal the session that ended, with its transcript for the summary (SessionEnd hook: Claude Code, Gemini CLI)",
		Long: `Journal the session a SessionEnd hook reports (session_id, transcript_path and cwd on stdin)
in the project of its cwd: how long it ran (from the start the session-start hook recorded) and,
when its transcript is provably this session's, in this directory and within its time window,
a bounded, redacted excerpt the host summarises into the entry (docs/maintenance.md). Sessions
that memhost run started are journalled by memhost run, so the hook does nothing in them. A
hook must never hold the CLI up: when memhost cannot journal, it says why on stderr and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cli, _ := cmd.Flags().GetString("cli")
			if os.Getenv(worker.RunMarkerEnv) != "" || spawn.MarkedByRun(os.Getenv, spawn.RunSessionEnv, cli) {
				return nil // a worker's CLI run, or a session memhost run journals itself
			}
			if err := sessionEnd(cmd, cli); err != nil && !errors.Is(err, spawn.ErrNothingToJournal) {
				fmt.Fprintf(cmd.ErrOrStderr(), "memhost: this session is not journalled: %v\n", err)
			}
			return nil
		},
	}
	end.Flags().String("cli", "", "the CLI running the hook: claude or gemini (its transcript layout)")
	end.Flags().String("host", "", "the running host's URL (default http://<server.listen>)")
	addSpawnTokenFlags(end)
	return end
}

// sessionMarkers is where the session-start hook records when a session started, for its end.
func sessionMarkers() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "memhost", "sessions")
}

// sessionEnd journals the session the hook input names.
func sessionEnd(cmd *cobra.Command, cli string) error {
	in := readHookInput(cmd.InOrStdin())
	if in.Cwd == "" {
		return errors.New("the hook input names no cwd")
	}
	cfg, err := loadConfig(cmd)
	if err != nil {
		return err
	}
	o, closeFn := spawnOptions(cmd, cfg, cli)
	defer closeFn()
	// The CLI's provider plugin reads its transcript; without one the session's metadata is
	// journalled alone, with the reason.
	var reader transcript.Reader
	if h, stop, err := startProvider(cmd.Context(), cfg, cli); err == nil {
		defer stop()
		reader = h
	}
	return spawn.EndSession(cmd.Context(), o.Host, o.Tokens, reader, sessionMarkers(), o.QuietUnder,
		spawn.HookSession{CLI: cli, ID: in.SessionID, Transcript: in.TranscriptPath, Dir: in.Cwd, Reason: in.Reason}, time.Now())
}

// maxHookInput bounds what a hook reads from stdin, and hookInputWait how long it waits.
const (
	maxHookInput  = 1 << 20
	hookInputWait = 2 * time.Second
)

// sessionStart returns the hook output for the session's project, and records when the
// session started for its session-end hook.
func sessionStart(cmd *cobra.Command, cli string) ([]byte, error) {
	in := readHookInput(cmd.InOrStdin())
	if !spawn.MarkedByRun(os.Getenv, spawn.RunSessionEnv, cli) {
		if err := spawn.MarkStart(sessionMarkers(), spawn.HookSession{CLI: cli, ID: in.SessionID}, time.Now()); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "memhost: %v\n", err)
		}
	}
	h, done, err := hookAccess(cmd, cli, in.Cwd)
	if err != nil {
		return nil, err
	}
	defer done()
	req := wire.BannerRequest{CLI: cli}
	if in.SessionID != "" && !spawn.MarkedByRun(os.Getenv, spawn.RunSessionEnv, cli) {
		// The session's record keeps what its banner gave, under the CLI's own session id.
		req.Session = &wire.SessionRef{Key: in.SessionID, CLI: cli, Origin: wire.OriginConnected}
	}
	banner, err := h.host.Banner(cmd.Context(), h.token, h.key, req)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": "SessionStart", "additionalContext": banner,
	}})
	return append(out, '\n'), err
}

// hookProject is what a hook needs to call the host for its session's project.
type hookProject struct {
	key, token string
	host       *hostclient.Client
}

// hookAccess resolves the project of dir ("": the current directory) and gets a token for it;
// done releases the token and the database connection minting it opened.
func hookAccess(cmd *cobra.Command, cli, dir string) (h hookProject, done func(), err error) {
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return h, nil, err
		}
	}
	id, err := project.Resolve(dir)
	if err != nil {
		return h, nil, err
	}
	cfg, err := loadConfig(cmd)
	if err != nil {
		return h, nil, err
	}
	o, closeFn := spawnOptions(cmd, cfg, cli)
	token, release, err := o.Tokens.Grant(cmd.Context(), id.Key, cli)
	if err != nil {
		closeFn()
		return h, nil, err
	}
	return hookProject{key: id.Key, token: token, host: o.Host}, func() { _ = release(cmd.Context()); closeFn() }, nil
}

// hookInput is what the CLIs send a hook on stdin (the fields memhost reads).
type hookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Reason         string `json:"reason"`
	// Prompt is what the user submitted (UserPromptSubmit, BeforeAgent), and HookEventName
	// the event the hook answers.
	Prompt        string `json:"prompt"`
	HookEventName string `json:"hook_event_name"`
}

// readHookInput reads the hook's input; a terminal, an input that never ends or one that is not
// JSON gives none. Cwd is kept only when absolute.
func readHookInput(stdin io.Reader) hookInput {
	var in hookInput
	if f, ok := stdin.(*os.File); ok && isTerminal(f) {
		return in
	}
	// The CLIs write the input and close stdin; one that kept it open must not hang the
	// session's start.
	read := make(chan []byte, 1)
	go func() {
		data, _ := io.ReadAll(io.LimitReader(stdin, maxHookInput))
		read <- data
	}()
	var data []byte
	select {
	case data = <-read:
	case <-time.After(hookInputWait):
	}
	if json.Unmarshal(data, &in) != nil {
		return hookInput{}
	}
	if !filepath.IsAbs(in.Cwd) {
		in.Cwd = ""
	}
	return in
}
