package claude

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memhost/memhost/sdk/provider"
)

// Version is the plugin release.
const Version = "1.0.0"

// Provider is the Claude Code provider. It keeps no state between calls:
// what Finish needs travels in Plan.State.
type Provider struct{}

var _ provider.Provider = (*Provider)(nil)

// New returns the provider.
func New() *Provider { return &Provider{} }

// Describe names the CLI.
func (*Provider) Describe(context.Context) (provider.Info, error) {
	return provider.Info{
		Name:             "claude",
		Version:          Version,
		Description:      "Claude Code: banner via --append-system-prompt-file, memhost MCP via --mcp-config",
		Executable:       "claude",
		InstructionFiles: []string{"CLAUDE.md"},
		// Claude Code keeps its file memory per project folder; past 200
		// characters it cuts the folder name and appends a hash.
		MemoryFolders: &provider.MemoryFolders{ConfigDirEnv: "CLAUDE_CONFIG_DIR", DefaultConfigDir: ".claude", Subdir: "memory", TruncateAt: 200},
		Task:          &taskRules,
	}, nil
}

// Health has nothing to check: Prepare reads no shared state.
func (*Provider) Health(context.Context) error { return nil }

// subcommands are Claude Code's commands (2.1.x) that start no session:
// they run with the user's arguments alone.
var subcommands = []string{
	"agents", "attach", "auth", "auto-mode", "doctor", "gateway", "import", "install", "logs", "mcp",
	"plugin", "plugins", "purge", "respawn", "rm", "setup-token", "stop", "kill", "ultrareview", "update", "upgrade",
}

// sessionFlags choose or resume a session themselves; with one of them the
// provider picks no session id.
var sessionFlags = []string{"--session-id", "-r", "--resume", "-c", "--continue", "--from-pr", "--teleport", "--fork-session"}

// Scratch file names.
const (
	mcpFile      = "mcp.json"
	bannerFile   = "banner.md"
	settingsFile = "settings.json"
	contextFile  = "session-start.json"
)

// state is what Finish needs from Prepare.
type state struct {
	SessionID string `json:"session_id,omitempty"`
}

// Prepare adds memhost through Claude Code's flags; see the package
// documentation.
func (*Provider) Prepare(ctx context.Context, s provider.Spawn) (provider.Plan, error) {
	if err := ctx.Err(); err != nil {
		return provider.Plan{}, err
	}
	if len(s.Args) > 0 && slices.Contains(subcommands, s.Args[0]) {
		return provider.Plan{Args: s.Args}, nil
	}
	var (
		args      []string
		files     []provider.File
		st        state
		delivered bool
	)
	if s.MCP != nil {
		headers := map[string]string{"Authorization": "Bearer " + s.MCP.Token}
		for k, v := range s.MCP.Headers {
			headers[k] = v
		}
		cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{s.MCP.Name: map[string]any{
			"type": "http", "url": s.MCP.URL, "headers": headers,
		}}})
		if err != nil {
			return provider.Plan{}, fmt.Errorf("mcp config: %w", err)
		}
		files = append(files, provider.File{Path: mcpFile, Mode: 0o600, Content: cfg})
		args = append(args, "--mcp-config="+filepath.Join(s.ScratchDir, mcpFile))
		if hasFlag(s.Args, "-p", "--print") {
			args = append(args, "--allowedTools=mcp__"+s.MCP.Name)
		}
	}
	// Hooks go in one --settings file, which Claude Code layers over the user's own settings:
	// the SessionStart hook when the user's arguments took the banner's flag, the prompt hook
	// (UserPromptSubmit) whenever memhost gives one. With the user's own --settings there is
	// no room for ours: a prompt hook memhost connect registered serves instead.
	hooks := map[string]any{}
	if s.Banner != "" {
		// The banner goes in a 0600 scratch file, never on the command line: other users
		// read a process's arguments in /proc, and one argument over 128 KiB fails exec.
		switch {
		case !hasFlag(s.Args, "--append-system-prompt", "--append-system-prompt-file"):
			files = append(files, provider.File{Path: bannerFile, Mode: 0o600, Content: []byte(s.Banner)})
			args = append(args, "--append-system-prompt-file="+filepath.Join(s.ScratchDir, bannerFile))
			delivered = true
		case !hasFlag(s.Args, "--settings"):
			// Claude Code joins a file and a flag of the user's, but refuses the pair in a
			// Remote Control session: a hook cannot conflict with either.
			hook, err := sessionStartHook(s)
			if err != nil {
				return provider.Plan{}, err
			}
			files = append(files, hook)
			hooks["SessionStart"] = hookEntry("cat '" + filepath.Join(s.ScratchDir, contextFile) + "'")
			delivered = true
		}
		// With both flags the user's own, the banner has no channel here: the SessionStart
		// hook memhost connect registered (if any) gives it, so delivered stays false.
	}
	promptHook := s.PromptHook != "" && !hasFlag(s.Args, "--settings")
	if promptHook {
		hooks["UserPromptSubmit"] = hookEntry(s.PromptHook)
	}
	if len(hooks) > 0 {
		cfg, err := json.Marshal(map[string]any{"hooks": hooks})
		if err != nil {
			return provider.Plan{}, fmt.Errorf("settings: %w", err)
		}
		files = append(files, provider.File{Path: settingsFile, Mode: 0o600, Content: cfg})
		args = append(args, "--settings="+filepath.Join(s.ScratchDir, settingsFile))
	}
	if !hasFlag(s.Args, sessionFlags...) {
		st.SessionID = newUUID()
		args = append(args, "--session-id="+st.SessionID)
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return provider.Plan{}, fmt.Errorf("state: %w", err)
	}
	return provider.Plan{Args: append(args, s.Args...), Files: files, State: raw, DeliversBanner: delivered, DeliversPromptHook: promptHook}, nil
}

// sessionStartHook returns the scratch file a SessionStart hook prints: the
// banner in the shape Claude Code injects.
func sessionStartHook(s provider.Spawn) (provider.File, error) {
	out, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": "SessionStart", "additionalContext": s.Banner,
	}})
	if err != nil {
		return provider.File{}, fmt.Errorf("session start hook: %w", err)
	}
	return provider.File{Path: contextFile, Mode: 0o600, Content: out}, nil
}

// hookTimeout is the seconds Claude Code gives one of memhost's hooks: the
// host answers in milliseconds, and a hook must never hold a prompt up long.
const hookTimeout = 10

// hookEntry is one event's hooks in --settings: the command, run for every
// occurrence (no matcher).
func hookEntry(command string) []any {
	return []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": hookTimeout}}}}
}

// hasFlag reports whether args hold one of flags, alone or as --flag=value.
func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(a, "=")
		if slices.Contains(flags, name) {
			return true
		}
	}
	return false
}

// newUUID returns a random (version 4) UUID, the form --session-id takes.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Finish finds the session's transcript under the user's Claude Code
// configuration directory: by the session id chosen in Prepare, else (the
// user resumed a session) the newest transcript of the working directory
// written since the session started.
func (*Provider) Finish(ctx context.Context, e provider.Ended) (provider.Session, error) {
	if err := ctx.Err(); err != nil {
		return provider.Session{}, err
	}
	var st state
	if len(e.State) > 0 {
		if err := json.Unmarshal(e.State, &st); err != nil {
			return provider.Session{}, fmt.Errorf("state: %w", err)
		}
	}
	projects := filepath.Join(configDir(e.Spawn.Env), "projects")
	if st.SessionID != "" {
		sess := provider.Session{ID: st.SessionID}
		if m, _ := filepath.Glob(filepath.Join(projects, "*", st.SessionID+".jsonl")); len(m) > 0 {
			sess.Transcript = m[0]
		}
		return sess, nil
	}
	path := newestTranscript(projects, e.Spawn.Dir, e.StartedAt)
	if path == "" {
		return provider.Session{}, nil
	}
	return provider.Session{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl"), Transcript: path}, nil
}

// configDir is Claude Code's configuration directory for the spawn's user.
func configDir(env map[string]string) string {
	if d := env["CLAUDE_CONFIG_DIR"]; d != "" {
		return d
	}
	return filepath.Join(env["HOME"], ".claude")
}

// maxEncodedDir is where Claude Code cuts a long encoded project directory
// (and appends a hash), so longer ones are matched by prefix.
const maxEncodedDir = 200

// newestTranscript returns the newest transcript of the project directory
// dir under projects modified at or after since, or "".
func newestTranscript(projects, dir string, since time.Time) string {
	encoded := encodeDir(dir)
	pattern := encoded
	if len(encoded) > maxEncodedDir {
		pattern = encoded[:maxEncodedDir] + "*"
	}
	matches, _ := filepath.Glob(filepath.Join(projects, pattern, "*.jsonl"))
	var (
		best     string
		bestTime time.Time
	)
	for _, m := range matches {
		fi, err := os.Stat(m)
		if err != nil || fi.ModTime().Before(since.Add(-time.Second)) {
			continue
		}
		if best == "" || fi.ModTime().After(bestTime) {
			best, bestTime = m, fi.ModTime()
		}
	}
	return best
}

// encodeDir is Claude Code's directory name for a project: every character
// that is not an ASCII letter or digit becomes '-'.
func encodeDir(dir string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, dir)
}
