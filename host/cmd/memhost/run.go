package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/client/connect"
	"github.com/memhost/memhost/host/internal/client/hostclient"
	"github.com/memhost/memhost/host/internal/client/spawn"
	"github.com/memhost/memhost/host/internal/config"
)

func runCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "run CLI [-- ARGS...]",
		Short: "Start an agent CLI (claude, codex, gemini) with the project's memory: its banner and memhost's MCP server",
		Long: `Start an agent CLI in the current project with memhost injected through the CLI's own
channels by its provider plugin (memhost-provider-CLI): the project's banner, and memhost's MCP
server under the name memhost with a token bound to this project. ARGS after -- go to the CLI
as given; stdin, stdout, stderr and signals are the CLI's and memhost run exits with its exit
code. The user's own configuration is never modified; scratch files are removed afterwards.

The token: with database.url configured, memhost run mints one bound to the project and
expiring after --token-ttl (this needs the same database access as memhost token create), and
keeps it in the user's cache folder for the project's next sessions while it has half its
lifetime left, so most spawns do not touch the database; --token-per-session mints one for the
session alone and revokes it when the session ends. Without a database it uses --token
(default $MEMHOST_TOKEN) as it is; make that token project-bound, the CLI holds it.

When the arguments carry the task (claude -p TASK, codex exec TASK, gemini -p TASK; the provider
knows where), the banner leads with the project's facts most relevant to it, over a confidence
floor (brain.prompt_floor), and each later prompt gets its relevant facts through the CLI's prompt
hook (brain.prompt_context turns both off). The session's record keeps what it was given,
retrieved, stored and cited: memhost project value reports it.

Memory never blocks work: when the host is unreachable or the provider fails, the CLI starts
anyway, without memory, after a one-line warning.`,
		Example: `  memhost run claude
  memhost run claude -- -p "what package manager do we use?"
  memhost run codex -- exec --json "fix the failing test" </dev/null
  memhost run gemini -- -p "summarise the plan" -o json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var timeline *spawn.Timeline
			if path := os.Getenv(spawn.TimelineEnv); path != "" {
				timeline = &spawn.Timeline{}
				timeline.MarkAt(spawn.StepInit, processInit)
			}
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			timeline.Mark(spawn.StepConfig)
			o, closeFn := spawnOptions(cmd, cfg, args[0])
			o.Timeline, o.TimelinePath = timeline, os.Getenv(spawn.TimelineEnv)
			defer closeFn()
			o.Args = args[1:]
			o.PromptHook = promptHook(cmd, cfg, args[0])
			signals, stop := spawn.Signals(isTerminal(os.Stdin))
			defer stop()
			o.Signals = signals
			res, err := spawn.Run(cmd.Context(), o)
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "memhost:", err)
			}
			if res.ExitCode != 0 {
				return exitCode(res.ExitCode)
			}
			return nil
		},
	}
	c.Flags().String("bin", "", "the CLI's executable (default: the provider's command on PATH)")
	c.Flags().String("host", "", "the running host's URL (default http://<server.listen>)")
	addSpawnTokenFlags(c)
	return c
}

// addSpawnTokenFlags adds the flags of the tokens memhost run and the session-start hook mint.
func addSpawnTokenFlags(c *cobra.Command) {
	c.Flags().Duration("token-ttl", spawn.DefaultTokenTTL, "lifetime of a minted project token")
	c.Flags().Bool("token-per-session", false, "mint a token for this session alone and revoke it when it ends, instead of reusing the project's")
	addTokenFlag(c)
}

// exitCode makes memhost exit with the status of the CLI it ran, which has said whatever it
// had to say: main exits with it and prints nothing.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// spawnOptions are the options of a spawn of cli from the configuration and flags (with no
// token source, every grant fails with the fix); closeFn
// releases the database connection, which is opened when a token is first minted.
func spawnOptions(cmd *cobra.Command, cfg *config.Config, cli string) (o spawn.Options, closeFn func()) {
	bin, _ := cmd.Flags().GetString("bin")
	o = spawn.Options{
		CLI:        cli,
		Executable: bin,
		PluginDirs: pluginDirs(cfg),
		Checksums:  cfg.Plugins.Checksums,
		Host:       hostClient(cmd, cfg),
		// To spawn, zero is its default (30 s); brain.quiet_session 0 journals every session.
		QuietUnder: max(cfg.Brain.QuietSession, time.Nanosecond),
	}
	if cache, err := os.UserCacheDir(); err == nil {
		// Beside the kept tokens: the task rules each provider binary declared.
		o.TaskRulesDir = filepath.Join(cache, "memhost", "task-rules")
	}
	o.Tokens, closeFn = projectTokens(cmd, cfg)
	if o.Tokens == nil {
		o.Tokens = noTokens{errNoToken(cfg)}
	}
	return o, closeFn
}

// promptHook is the command of memhost's prompt hook for a session of cli, or "" when
// brain.prompt_context is off (the host would add nothing) or this binary cannot be found.
func promptHook(cmd *cobra.Command, cfg *config.Config, cli string) string {
	if !cfg.Brain.PromptContext {
		return ""
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	cfgPath := cfg.Path()
	if cfgPath != "" {
		cfgPath, _ = filepath.Abs(cfgPath)
	}
	if err != nil {
		return ""
	}
	host, _ := cmd.Flags().GetString("host")
	return connect.PromptHookCommand(self, cfgPath, cli, host)
}

// hostClient is the running host at --host, else at server.listen.
func hostClient(cmd *cobra.Command, cfg *config.Config) *hostclient.Client {
	hostURL, _ := cmd.Flags().GetString("host")
	if hostURL == "" {
		hostURL = "http://" + dialable(cfg.Server.Listen)
	}
	return &hostclient.Client{URL: hostURL}
}

// projectTokens is the one way memhost run, the SessionStart hook and memhost mcp get a token
// bound to a project: minted through the database (and kept in the user's 0600 cache unless
// --token-per-session), else the operator's --token as it is; nil when there is neither.
// closeFn releases the database connection, opened when a token is first minted.
func projectTokens(cmd *cobra.Command, cfg *config.Config) (tokens spawn.Tokens, closeFn func()) {
	token, _ := cmd.Flags().GetString("token")
	ttl, _ := cmd.Flags().GetDuration("token-ttl")
	perSession, _ := cmd.Flags().GetBool("token-per-session")
	switch {
	case cfg.Database.URL != "":
		open, closeStore := tokenStore(cfg)
		mint := spawn.MintTokens{TTL: ttl, Store: func(ctx context.Context) (spawn.Minter, error) {
			tokens, err := open(ctx)
			if err != nil {
				return nil, err
			}
			return tokens, nil
		}}
		if cache, err := os.UserCacheDir(); err == nil && !perSession {
			mint.CacheDir = filepath.Join(cache, "memhost", "tokens")
		}
		return mint, closeStore
	case token != "":
		return spawn.StaticToken(token), func() {}
	}
	return nil, func() {}
}

// dialable turns a listen address into one to connect to: a host that listens on every
// interface is reached on the loopback.
func dialable(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// pluginDirs are the configured plugin directories and, after them, the plugins folder next
// to the memhost binary (bin/plugins beside bin/memhost), so an installed memhost finds its
// providers from any project directory.
func pluginDirs(cfg *config.Config) []string {
	dirs := slices.Clone(cfg.Plugins.Dirs)
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			// Only when it exists: a binary installed alone has no such folder to report.
			if own := filepath.Join(filepath.Dir(exe), "plugins"); !slices.Contains(dirs, own) && isDir(own) {
				dirs = append(dirs, own)
			}
		}
	}
	return dirs
}
