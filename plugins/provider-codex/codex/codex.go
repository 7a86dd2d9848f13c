package codex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/memhost/memhost/sdk/provider"
)

// Version is the plugin release.
const Version = "1.0.0"

// Provider is the Codex provider. It keeps no state between calls.
type Provider struct{}

var _ provider.Provider = (*Provider)(nil)

// New returns the provider.
func New() *Provider { return &Provider{} }

// Describe names the CLI.
func (*Provider) Describe(context.Context) (provider.Info, error) {
	return provider.Info{
		Name:             "codex",
		Version:          Version,
		Description:      "Codex: banner in AGENTS.md and memhost MCP in config.toml of a scratch CODEX_HOME mirroring the user's",
		Executable:       "codex",
		InstructionFiles: []string{"AGENTS.md"},
		Task:             &taskRules,
	}, nil
}

// Health has nothing to check: Prepare reads no shared state.
func (*Provider) Health(context.Context) error { return nil }

// home is the scratch CODEX_HOME, relative to the scratch directory.
const home = "codex-home"

// management are Codex's (0.169) commands that start no session; they run
// unchanged against the user's own home, where they belong (codex login
// must store its credentials there).
var management = []string{
	"login", "logout", "mcp", "plugin", "app-server", "remote-control", "completion", "update", "doctor",
	"sandbox", "debug", "apply", "a", "queue", "archive", "delete", "migrate-rollouts", "migrate-nfs-db",
	"unarchive", "cloud", "exec-server", "features", "help",
}

// Prepare points CODEX_HOME at a scratch home that mirrors the user's; see
// the package documentation.
func (*Provider) Prepare(ctx context.Context, s provider.Spawn) (provider.Plan, error) {
	if err := ctx.Err(); err != nil {
		return provider.Plan{}, err
	}
	if (s.MCP == nil && s.Banner == "") || slices.Contains(management, command(s.Args)) {
		return provider.Plan{Args: s.Args}, nil
	}
	user := userHome(s.Env)
	instructions := "AGENTS.md"
	if _, err := os.Stat(filepath.Join(user, "AGENTS.override.md")); err == nil {
		instructions = "AGENTS.override.md"
	}
	skip := []string{"config.toml"}
	if s.Banner != "" {
		skip = append(skip, instructions)
	}
	files, err := provider.Mirror{From: user, To: home, Skip: skip, Persist: []string{"sessions"}}.Files()
	if err != nil {
		return provider.Plan{}, err
	}
	config, err := mergeConfig(filepath.Join(user, "config.toml"), s.MCP)
	if err != nil {
		return provider.Plan{}, err
	}
	files = append(files, provider.File{Path: home + "/config.toml", Mode: 0o600, Content: config})
	agents, err := appendBanner(filepath.Join(user, instructions), s.Banner)
	if err != nil {
		return provider.Plan{}, err
	}
	if agents != nil {
		// 0600: the banner is the project's memory, for this user alone.
		files = append(files, provider.File{Path: home + "/" + instructions, Mode: 0o600, Content: agents})
	}
	return provider.Plan{
		Args:           s.Args,
		SetEnv:         map[string]string{"CODEX_HOME": filepath.Join(s.ScratchDir, home)},
		Files:          files,
		DeliversBanner: agents != nil,
	}, nil
}

// command is the first argument that is neither an option nor an option's
// value: Codex's command, or the prompt of an interactive session.
func command(args []string) string {
	if pos := options.Scan(args).Positional; len(pos) > 0 {
		return pos[0]
	}
	return ""
}

// userHome is the user's CODEX_HOME.
func userHome(env map[string]string) string {
	if d := env["CODEX_HOME"]; d != "" {
		return d
	}
	return filepath.Join(env["HOME"], ".codex")
}

// mergeConfig returns the user's config.toml at path with memhost's MCP
// server set, re-encoded; a missing file counts as empty.
func mergeConfig(path string, mcp *provider.MCPServer) ([]byte, error) {
	doc := map[string]any{}
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read the user's config.toml: %w", err)
	default:
		if err := toml.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("the user's config.toml does not parse: %w", err)
		}
	}
	if mcp != nil {
		servers, ok := doc["mcp_servers"].(map[string]any)
		if !ok {
			if _, other := doc["mcp_servers"]; other {
				return nil, errors.New("the user's config.toml: mcp_servers is not a table")
			}
			servers = map[string]any{}
			doc["mcp_servers"] = servers
		}
		headers := map[string]any{"Authorization": "Bearer " + mcp.Token}
		for k, v := range mcp.Headers {
			headers[k] = v
		}
		servers[mcp.Name] = map[string]any{"url": mcp.URL, "http_headers": headers}
	}
	out, err := toml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode config.toml: %w", err)
	}
	return out, nil
}

// appendBanner returns the user's instruction file at path with the banner
// after it, or nil when there is no banner (the user's file is linked then).
func appendBanner(path, banner string) ([]byte, error) {
	if banner == "" {
		return nil, nil
	}
	own, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read the user's %s: %w", filepath.Base(path), err)
	}
	if len(own) > 0 {
		own = append([]byte(strings.TrimRight(string(own), "\n")), "\n\n"...)
	}
	return append(own, banner...), nil
}

// Finish finds the rollout of the session in the user's sessions directory.
func (*Provider) Finish(ctx context.Context, e provider.Ended) (provider.Session, error) {
	if err := ctx.Err(); err != nil {
		return provider.Session{}, err
	}
	path, id := newestRollout(filepath.Join(userHome(e.Spawn.Env), "sessions"), e.Spawn.Dir, e.StartedAt)
	return provider.Session{ID: id, Transcript: path}, nil
}

// newestRollout returns the newest rollout under sessions written at or
// after since by a session in dir, and its session id. Rollouts live in
// sessions/YYYY/MM/DD; only the days around the session are read.
func newestRollout(sessions, dir string, since time.Time) (path, id string) {
	since = since.Add(-time.Second)
	var bestTime time.Time
	seen := map[string]bool{}
	for day := since.Add(-24 * time.Hour); !day.After(time.Now().Add(24 * time.Hour)); day = day.Add(24 * time.Hour) {
		dayDir := filepath.Join(sessions, day.Format("2006"), day.Format("01"), day.Format("02"))
		if seen[dayDir] {
			continue
		}
		seen[dayDir] = true
		matches, _ := filepath.Glob(filepath.Join(dayDir, "rollout-*.jsonl"))
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil || fi.ModTime().Before(since) || (path != "" && !fi.ModTime().After(bestTime)) {
				continue
			}
			if meta, ok := readSessionMeta(m); ok && meta.ID != "" && meta.Cwd == dir {
				path, id, bestTime = m, meta.ID, fi.ModTime()
			}
		}
	}
	return path, id
}
