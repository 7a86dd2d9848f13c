package gemini

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

// Connect registers `memhost mcp` through `gemini mcp add` at user scope,
// trusted (headless `gemini -p` offers an untrusted server's tools to no
// model), and adds a SessionStart hook (the banner) and a BeforeAgent hook
// (each prompt's relevant facts) to the same settings.json. Its -e
// takes every value that follows, so the options come after the positionals.
// Gemini CLI's hook timeout is in milliseconds.
func (*Provider) Connect(ctx context.Context, r provider.ConnectRequest) (provider.Connection, error) {
	if err := ctx.Err(); err != nil {
		return provider.Connection{}, err
	}
	settings := filepath.Join(userDir(r.Env), "settings.json")
	registered, err := hasServer(settings)
	if err != nil {
		return provider.Connection{}, err
	}
	args := []string{"mcp", "add", provider.ServerName, r.Memhost, "mcp", "--scope", "user", "--trust"}
	if r.Config != "" {
		args = append(args, "-e", "MEMHOST_CONFIG="+r.Config)
	}
	hook, err := hookGroup(r.Hook, hookTimeout)
	if err != nil {
		return provider.Connection{}, err
	}
	c := provider.Connection{Steps: []provider.ConnectStep{
		{File: settings, Run: &provider.Command{Args: args, UndoArgs: []string{"mcp", "remove", "--scope", "user", provider.ServerName}}},
		{File: settings, JSONAppend: &provider.JSONAppend{Path: []string{"hooks", "SessionStart"}, Value: hook}},
	}}
	// The prompt hook (BeforeAgent, which runs on each prompt before the model) adds the facts
	// relevant to it.
	if prompt := r.PromptHook(); prompt != "" {
		promptHook, err := hookGroup(prompt, hookTimeout)
		if err != nil {
			return provider.Connection{}, err
		}
		c.Steps = append(c.Steps, provider.ConnectStep{File: settings, JSONAppend: &provider.JSONAppend{Path: []string{"hooks", "BeforeAgent"}, Value: promptHook}})
	}
	if registered {
		c.RegisteredIn = settings
	}
	return c, nil
}

// hookTimeout is the milliseconds Gemini CLI gives one of memhost's hooks.
const hookTimeout = 10000

// hookGroup is a hook entry running command, in the shape Gemini CLI reads:
// {hooks: [{type, command, timeout}]}.
func hookGroup(command string, timeout int) (string, error) {
	if command == "" {
		return "", fmt.Errorf("%w: hook: empty; Gemini CLI is connected with memhost's hooks", provider.ErrInvalidInput)
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
