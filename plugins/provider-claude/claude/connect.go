package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memhost/memhost/sdk/jsonc"
	"github.com/memhost/memhost/sdk/provider"
)

var _ provider.Connector = (*Provider)(nil)

// Connect registers `memhost mcp` through `claude mcp add` at user scope (the
// default, local scope, would register it for one directory only) and adds a
// SessionStart hook (the banner), a SessionEnd hook (the journal entry and the
// session's record) and a UserPromptSubmit hook (each prompt's relevant facts)
// to settings.json. Claude Code's hook timeout is in seconds.
func (*Provider) Connect(ctx context.Context, r provider.ConnectRequest) (provider.Connection, error) {
	if err := ctx.Err(); err != nil {
		return provider.Connection{}, err
	}
	userFile := userConfigFile(r.Env)
	registered, err := hasServer(userFile)
	if err != nil {
		return provider.Connection{}, err
	}
	// -e takes several values: the name comes before it, and -- ends the options.
	args := []string{"mcp", "add", "--scope", "user", provider.ServerName}
	if r.Config != "" {
		args = append(args, "-e", "MEMHOST_CONFIG="+r.Config)
	}
	args = append(args, "--", r.Memhost, "mcp")
	hook, err := hookGroup(r.Hook, 10)
	if err != nil {
		return provider.Connection{}, err
	}
	settings := filepath.Join(configDir(r.Env), "settings.json")
	c := provider.Connection{Steps: []provider.ConnectStep{
		{File: userFile, Run: &provider.Command{Args: args, UndoArgs: []string{"mcp", "remove", "--scope", "user", provider.ServerName}}},
		{File: settings, JSONAppend: &provider.JSONAppend{Path: []string{"hooks", "SessionStart"}, Value: hook}},
	}}
	// The SessionEnd hook journals the session with its transcript for the summary.
	if end := r.SessionEndHook(); end != "" {
		endHook, err := hookGroup(end, 15)
		if err != nil {
			return provider.Connection{}, err
		}
		c.Steps = append(c.Steps, provider.ConnectStep{File: settings, JSONAppend: &provider.JSONAppend{Path: []string{"hooks", "SessionEnd"}, Value: endHook}})
	}
	// The prompt hook adds the facts relevant to each prompt the user submits.
	if prompt := r.PromptHook(); prompt != "" {
		promptHook, err := hookGroup(prompt, hookTimeout)
		if err != nil {
			return provider.Connection{}, err
		}
		c.Steps = append(c.Steps, provider.ConnectStep{File: settings, JSONAppend: &provider.JSONAppend{Path: []string{"hooks", "UserPromptSubmit"}, Value: promptHook}})
	}
	if registered {
		c.RegisteredIn = userFile
	}
	return c, nil
}

// userConfigFile is where `claude mcp add --scope user` writes: .claude.json in
// CLAUDE_CONFIG_DIR when it is set, else in the home directory.
func userConfigFile(env map[string]string) string {
	if d := env["CLAUDE_CONFIG_DIR"]; d != "" {
		return filepath.Join(d, ".claude.json")
	}
	return filepath.Join(env["HOME"], ".claude.json")
}

// hookGroup is a hook entry running command, in the shape
// Claude Code reads: {hooks: [{type, command, timeout}]}.
func hookGroup(command string, timeout int) (string, error) {
	if command == "" {
		return "", fmt.Errorf("%w: hook: empty; Claude Code is connected with a SessionStart hook", provider.ErrInvalidInput)
	}
	type hook struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	b, err := json.Marshal(map[string][]hook{"hooks": {{Type: "command", Command: command, Timeout: timeout}}})
	return string(b), err
}

// hasServer reports whether the JSON file at path registers memhost under mcpServers.
func hasServer(path string) (bool, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(jsonc.StripComments(raw), &doc); err != nil {
		return false, fmt.Errorf("%s does not parse: %w", path, err)
	}
	_, ok := doc.MCPServers[provider.ServerName]
	return ok, nil
}
