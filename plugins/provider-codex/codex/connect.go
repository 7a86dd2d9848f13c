package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/memhost/memhost/sdk/provider"
)

var _ provider.Connector = (*Provider)(nil)

// connectHeader starts the block Connect appends; undo finds it by this line
// and removes it up to the next table, so the table an earlier memhost wrote
// (an HTTP server with a token) goes too.
const connectHeader = "# Added by memhost connect (memhost connect --undo codex removes it)."

// Connect appends an [mcp_servers.memhost] table to config.toml: the stdio
// server `memhost mcp`, with MEMHOST_CONFIG in its env table, since Codex
// starts stdio servers with a cleared environment. memhost's server
// instructions tell its model to load the project's context at the start of a
// session. It also adds memhost's prompt hook to hooks.json as a
// UserPromptSubmit hook (Codex 0.169 reads $CODEX_HOME/hooks.json in Claude
// Code's shape): Codex runs a new hook only once the user has reviewed and
// trusted it in Codex, which memhost never bypasses.
func (*Provider) Connect(ctx context.Context, r provider.ConnectRequest) (provider.Connection, error) {
	if err := ctx.Err(); err != nil {
		return provider.Connection{}, err
	}
	path := filepath.Join(userHome(r.Env), "config.toml")
	block := fmt.Sprintf("%s\n[mcp_servers.%s]\ncommand = %s\nargs = [\"mcp\"]\n", connectHeader, provider.ServerName, tomlString(r.Memhost))
	if r.Config != "" {
		block += fmt.Sprintf("env = { MEMHOST_CONFIG = %s }\n", tomlString(r.Config))
	}
	c := provider.Connection{Steps: []provider.ConnectStep{{File: path, TextAppend: &provider.TextAppend{Text: block, UntilPrefix: "["}}}}
	if prompt := r.PromptHook(); prompt != "" {
		hook, err := json.Marshal(map[string]any{"hooks": []any{map[string]string{"type": "command", "command": prompt}}})
		if err != nil {
			return provider.Connection{}, fmt.Errorf("prompt hook: %w", err)
		}
		c.Steps = append(c.Steps, provider.ConnectStep{File: filepath.Join(userHome(r.Env), "hooks.json"),
			JSONAppend: &provider.JSONAppend{Path: []string{"hooks", "UserPromptSubmit"}, Value: string(hook)}})
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return provider.Connection{}, fmt.Errorf("read %s: %w", path, err)
	}
	var doc struct {
		MCPServers map[string]any `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(raw, &doc); err != nil {
		return provider.Connection{}, fmt.Errorf("%s does not parse: %w", path, err)
	}
	if _, ok := doc.MCPServers[provider.ServerName]; ok {
		c.RegisteredIn = path
		return c, nil
	}
	// The block goes after a blank line, as memhost appends it; it must not
	// break the file (an inline mcp_servers table, say).
	var check map[string]any
	if err := toml.Unmarshal(append(append(bytes.TrimRight(raw, "\n"), "\n\n"...), block...), &check); err != nil {
		return provider.Connection{}, fmt.Errorf("%s would not parse with [mcp_servers.%s] appended (is mcp_servers an inline table?): %w", path, provider.ServerName, err)
	}
	return c, nil
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	b, _ := toml.Marshal(map[string]string{"v": s})
	_, v, _ := strings.Cut(strings.TrimSpace(string(b)), " = ")
	return v
}
