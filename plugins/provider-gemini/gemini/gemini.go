package gemini

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memhost/memhost/sdk/jsonc"
	"github.com/memhost/memhost/sdk/provider"
)

// Version is the plugin release.
const Version = "1.0.0"

// Provider is the Gemini CLI provider. It keeps no state between calls:
// what Finish needs travels in Plan.State.
type Provider struct{}

var _ provider.Provider = (*Provider)(nil)

// New returns the provider.
func New() *Provider { return &Provider{} }

// Describe names the CLI.
func (*Provider) Describe(context.Context) (provider.Info, error) {
	return provider.Info{
		Name:             "gemini",
		Version:          Version,
		Description:      "Gemini CLI: banner in GEMINI.md and memhost MCP in settings.json of a scratch GEMINI_CLI_HOME mirroring the user's",
		Executable:       "gemini",
		InstructionFiles: []string{"GEMINI.md"},
		Task:             &taskRules,
	}, nil
}

// Health has nothing to check: Prepare reads no shared state.
func (*Provider) Health(context.Context) error { return nil }

// home is the scratch GEMINI_CLI_HOME, relative to the scratch directory;
// Gemini CLI's directory is .gemini inside it.
const (
	home = "gemini-home"
	dot  = home + "/.gemini"
)

// management are Gemini CLI's (0.61) commands that start no session.
var management = []string{"mcp", "extensions", "extension", "skills", "skill", "hooks", "hook", "gemma"}

// sessionFlags choose or resume a session themselves.
var sessionFlags = []string{"--session-id", "-r", "--resume", "--session-file"}

// state is what Finish needs from Prepare.
type state struct {
	SessionID string `json:"session_id,omitempty"`
}

// Prepare points GEMINI_CLI_HOME at a scratch home that mirrors the user's;
// see the package documentation.
func (*Provider) Prepare(ctx context.Context, s provider.Spawn) (provider.Plan, error) {
	if err := ctx.Err(); err != nil {
		return provider.Plan{}, err
	}
	if (s.MCP == nil && s.Banner == "") || (len(s.Args) > 0 && slices.Contains(management, s.Args[0])) {
		return provider.Plan{Args: s.Args}, nil
	}
	user := userDir(s.Env)
	settings, contextName, err := mergeSettings(filepath.Join(user, "settings.json"), s.MCP, s.PromptHook)
	if err != nil {
		return provider.Plan{}, err
	}
	skip := []string{"settings.json"}
	if s.Banner != "" {
		skip = append(skip, contextName)
	}
	files, err := provider.Mirror{From: user, To: dot, Skip: skip, Persist: []string{"tmp", "history"}}.Files()
	if err != nil {
		return provider.Plan{}, err
	}
	files = append(files, provider.File{Path: dot + "/settings.json", Mode: 0o600, Content: settings})
	if s.Banner != "" {
		own, err := os.ReadFile(filepath.Join(user, contextName))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return provider.Plan{}, fmt.Errorf("read the user's %s: %w", contextName, err)
		}
		if len(own) > 0 {
			own = append([]byte(strings.TrimRight(string(own), "\n")), "\n\n"...)
		}
		// 0600: the banner is the project's memory, for this user alone.
		files = append(files, provider.File{Path: dot + "/" + contextName, Mode: 0o600, Content: append(own, s.Banner...)})
	}
	var args []string
	var st state
	if !hasFlag(s.Args, sessionFlags...) {
		st.SessionID = newUUID()
		args = append(args, "--session-id="+st.SessionID)
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return provider.Plan{}, fmt.Errorf("state: %w", err)
	}
	return provider.Plan{
		Args: append(args, s.Args...),
		SetEnv: map[string]string{
			"GEMINI_CLI_HOME":            filepath.Join(s.ScratchDir, home),
			"GEMINI_CLI_TRUST_WORKSPACE": "true",
		},
		Files:              files,
		State:              raw,
		DeliversBanner:     s.Banner != "",
		DeliversPromptHook: s.PromptHook != "",
	}, nil
}

// userDir is the user's Gemini CLI directory.
func userDir(env map[string]string) string {
	if d := env["GEMINI_CLI_HOME"]; d != "" {
		return filepath.Join(d, ".gemini")
	}
	return filepath.Join(env["HOME"], ".gemini")
}

// mergeSettings returns the user's settings.json at path with memhost's MCP
// server set (its headers beside the token) and memhost's prompt hook added to
// the user's BeforeAgent hooks, and the context file name the banner goes
// into. A missing file counts as empty.
func mergeSettings(path string, mcp *provider.MCPServer, promptHook string) (settings []byte, contextName string, err error) {
	doc := map[string]any{}
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, "", fmt.Errorf("read the user's settings.json: %w", err)
	default:
		if err := json.Unmarshal(jsonc.StripComments(raw), &doc); err != nil {
			return nil, "", fmt.Errorf("the user's settings.json does not parse: %w", err)
		}
		if doc == nil {
			doc = map[string]any{}
		}
	}
	if mcp != nil {
		servers, err := object(doc, "mcpServers")
		if err != nil {
			return nil, "", err
		}
		headers := map[string]any{"Authorization": "Bearer " + mcp.Token}
		for k, v := range mcp.Headers {
			headers[k] = v
		}
		servers[mcp.Name] = map[string]any{"type": "http", "url": mcp.URL, "trust": true, "headers": headers}
		if m, ok := doc["mcp"].(map[string]any); ok {
			if allowed, ok := m["allowed"].([]any); ok && !slices.Contains(allowed, any(mcp.Name)) {
				m["allowed"] = append(allowed, mcp.Name)
			}
		}
	}
	if promptHook != "" {
		hooks, err := object(doc, "hooks")
		if err != nil {
			return nil, "", err
		}
		group, err := hookGroup(promptHook, hookTimeout)
		if err != nil {
			return nil, "", err
		}
		var entry any
		if err := json.Unmarshal([]byte(group), &entry); err != nil {
			return nil, "", fmt.Errorf("prompt hook: %w", err)
		}
		list, _ := hooks["BeforeAgent"].([]any)
		hooks["BeforeAgent"] = append(list, entry)
	}
	settings, err = json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, "", fmt.Errorf("encode settings.json: %w", err)
	}
	return settings, contextFileName(doc), nil
}

// object returns doc[key] as an object, creating it when absent.
func object(doc map[string]any, key string) (map[string]any, error) {
	v, ok := doc[key]
	if !ok || v == nil {
		m := map[string]any{}
		doc[key] = m
		return m, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the user's settings.json: %s is not an object", key)
	}
	return m, nil
}

// contextFileName is the first context file name the user configured
// (context.fileName, a string or a list), else GEMINI.md.
func contextFileName(doc map[string]any) string {
	c, _ := doc["context"].(map[string]any)
	var name string
	switch v := c["fileName"].(type) {
	case string:
		name = v
	case []any:
		if len(v) > 0 {
			name, _ = v[0].(string)
		}
	}
	if name == "" || name != filepath.Base(name) || name == "settings.json" || name == "." || name == ".." {
		return "GEMINI.md"
	}
	return name
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

// Finish finds the chat of the session under the user's tmp directory: by
// the session id chosen in Prepare, else (the user resumed a session) the
// newest chat of the working directory written since the session started.
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
	tmp := filepath.Join(userDir(e.Spawn.Env), "tmp")
	since := e.StartedAt.Add(-time.Second)
	var (
		best     provider.Session
		bestTime time.Time
	)
	// Chats are tmp/<project>/chats/session-<time>-<id prefix>.jsonl, the
	// first line naming the session; the project folder holds .project_root.
	matches, _ := filepath.Glob(filepath.Join(tmp, "*", "chats", "session-*.jsonl"))
	for _, m := range matches {
		fi, err := os.Stat(m)
		if err != nil || fi.ModTime().Before(since) {
			continue
		}
		id := chatSession(m)
		switch {
		case id == "":
			continue
		case st.SessionID != "":
			if id == st.SessionID {
				return provider.Session{ID: id, Transcript: m}, nil
			}
			continue
		}
		root, _ := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(m)), ".project_root"))
		if strings.TrimSpace(string(root)) == e.Spawn.Dir && fi.ModTime().After(bestTime) {
			best, bestTime = provider.Session{ID: id, Transcript: m}, fi.ModTime()
		}
	}
	if st.SessionID != "" {
		return provider.Session{ID: st.SessionID}, nil
	}
	return best, nil
}

// maxChatLine bounds the first line of a chat, its header.
const maxChatLine = 1 << 20

// chatSession reads the session id from a chat's first line.
func chatSession(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4<<10), maxChatLine)
	if !sc.Scan() {
		return ""
	}
	var head struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(sc.Bytes(), &head) != nil {
		return ""
	}
	return head.SessionID
}
