package connect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// serverName is memhost's name in every CLI: its tools are mcp__memhost__* (Claude Code,
// Codex) and mcp_memhost_* (Gemini CLI).
const serverName = "memhost"

// claude registers through `claude mcp add` and hooks through settings.json.
type claude struct{}

// configDir is Claude Code's configuration folder: CLAUDE_CONFIG_DIR, else ~/.claude.
func (claude) configDir(o Options) string {
	if d := o.Env["CLAUDE_CONFIG_DIR"]; d != "" {
		return d
	}
	return filepath.Join(o.Env["HOME"], ".claude")
}

// userFile is where `claude mcp add --scope user` writes: .claude.json in CLAUDE_CONFIG_DIR
// when it is set, else in the home directory.
func (c claude) userFile(o Options) string {
	if d := o.Env["CLAUDE_CONFIG_DIR"]; d != "" {
		return filepath.Join(d, ".claude.json")
	}
	return filepath.Join(o.Env["HOME"], ".claude.json")
}

func (c claude) settings(o Options) string { return filepath.Join(c.configDir(o), "settings.json") }

func (c claude) registered(o Options) (string, error) {
	return jsonServer(c.userFile(o))
}

func (c claude) connect(o Options, s server) ([]step, error) {
	// -e takes several values: the name comes before it, and -- ends the options.
	args := append([]string{"mcp", "add", "--scope", "user", serverName}, envArgs(s)...)
	args = append(args, "--", s.memhost, "mcp")
	return []step{
		{file: c.userFile(o), run: args, show: commandLine("claude", args)},
		{file: c.settings(o), edit: addHook(s.hook, 10)}, // Claude Code's hook timeout is in seconds
	}, nil
}

// envArgs give the stdio server the operator's configuration file.
func envArgs(s server) []string {
	if s.config == "" {
		return nil
	}
	return []string{"-e", "MEMHOST_CONFIG=" + s.config}
}

// commandLine is a command as connect shows it, quoted for the shell.
func commandLine(name string, args []string) string {
	quoted := []string{name}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	return strings.Join(quoted, " ")
}

func (c claude) disconnect(o Options, file string, st *state) []step {
	if file == c.settings(o) {
		return []step{{file: file, edit: removeHook(st.Hook)}}
	}
	if where, _ := c.registered(o); where == "" {
		return nil // the user removed it already
	}
	return []step{{file: file, run: []string{"mcp", "remove", "--scope", "user", serverName}, show: "claude mcp remove --scope user " + serverName}}
}

// gemini registers through `gemini mcp add` and hooks through the same settings.json.
type gemini struct{}

// settings is Gemini CLI's user settings: ~/.gemini/settings.json, where GEMINI_CLI_HOME
// replaces ~.
func (gemini) settings(o Options) string {
	home := o.Env["GEMINI_CLI_HOME"]
	if home == "" {
		home = o.Env["HOME"]
	}
	return filepath.Join(home, ".gemini", "settings.json")
}

func (g gemini) registered(o Options) (string, error) {
	return jsonServer(g.settings(o))
}

func (g gemini) connect(o Options, s server) ([]step, error) {
	file := g.settings(o)
	// Its -e takes every value that follows: the options come after the positionals.
	args := append([]string{"mcp", "add", serverName, s.memhost, "mcp", "--scope", "user", "--trust"}, envArgs(s)...)
	return []step{
		{file: file, run: args, show: commandLine("gemini", args)},
		{file: file, edit: addHook(s.hook, 10000)}, // Gemini CLI's hook timeout is in milliseconds
	}, nil
}

func (g gemini) disconnect(o Options, file string, st *state) []step {
	var steps []step
	if where, _ := g.registered(o); where != "" {
		steps = append(steps, step{file: file, run: []string{"mcp", "remove", "--scope", "user", serverName}, show: "gemini mcp remove --scope user " + serverName})
	}
	return append(steps, step{file: file, edit: removeHook(st.Hook)})
}

// jsonServer reports path when its mcpServers has memhost.
func jsonServer(path string) (string, error) {
	data, exists, err := readFile(path)
	if err != nil || !exists {
		return "", err
	}
	doc, err := parseDocument(data)
	if err != nil {
		return "", fmt.Errorf("%s does not parse: %w", path, err)
	}
	if servers, ok := doc.vals["mcpServers"].(*object); ok {
		if _, ok := servers.get(serverName); ok {
			return path, nil
		}
	}
	return "", nil
}

// addHook adds a SessionStart hook running command to a settings file, in the shape both
// Claude Code and Gemini CLI read: hooks.SessionStart[] = {hooks: [{type, command, timeout}]}.
func addHook(command string, timeout int) func([]byte) ([]byte, error) {
	return func(before []byte) ([]byte, error) {
		doc, err := parseDocument(before)
		if err != nil {
			return nil, fmt.Errorf("settings do not parse: %w", err)
		}
		hooks, err := doc.child("hooks")
		if err != nil {
			return nil, err
		}
		var groups []any
		if v, ok := hooks.get("SessionStart"); ok && v != nil {
			if groups, ok = v.([]any); !ok {
				return nil, fmt.Errorf("hooks.SessionStart is not a list")
			}
		}
		entry := newObject()
		entry.set("type", "command")
		entry.set("command", command)
		entry.set("timeout", json.Number(fmt.Sprint(timeout)))
		group := newObject()
		group.set("hooks", []any{entry})
		hooks.set("SessionStart", append(groups, group))
		return doc.encode()
	}
}

// removeHook takes the hook running command out of a settings file, and the containers that
// are left empty.
func removeHook(command string) func([]byte) ([]byte, error) {
	return func(before []byte) ([]byte, error) {
		doc, err := parseDocument(before)
		if err != nil {
			return nil, fmt.Errorf("settings do not parse: %w", err)
		}
		hooks, ok := doc.vals["hooks"].(*object)
		if !ok {
			return before, nil
		}
		groups, _ := hooks.vals["SessionStart"].([]any)
		var kept []any
		for _, g := range groups {
			group, ok := g.(*object)
			if !ok {
				kept = append(kept, g)
				continue
			}
			inner, _ := group.vals["hooks"].([]any)
			var rest []any
			for _, h := range inner {
				if e, ok := h.(*object); ok && e.vals["command"] == command {
					continue
				}
				rest = append(rest, h)
			}
			if len(rest) == 0 && len(inner) > 0 {
				continue
			}
			if len(rest) != len(inner) {
				group.set("hooks", rest)
			}
			kept = append(kept, group)
		}
		if len(kept) == len(groups) && len(groups) > 0 {
			return before, nil // not there: leave the file alone
		}
		if len(kept) == 0 {
			hooks.remove("SessionStart")
		} else {
			hooks.set("SessionStart", kept)
		}
		if len(hooks.keys) == 0 {
			doc.remove("hooks")
		}
		return doc.encode()
	}
}

// codex appends an [mcp_servers.memhost] table to config.toml (Codex has no hooks): the stdio
// server `memhost mcp`, with MEMHOST_CONFIG in its env table, since Codex starts stdio servers
// with a cleared environment.
type codex struct{}

func (codex) config(o Options) string {
	home := o.Env["CODEX_HOME"]
	if home == "" {
		home = filepath.Join(o.Env["HOME"], ".codex")
	}
	return filepath.Join(home, "config.toml")
}

func (c codex) registered(o Options) (string, error) {
	path := c.config(o)
	data, exists, err := readFile(path)
	if err != nil || !exists {
		return "", err
	}
	var doc struct {
		MCPServers map[string]any `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("%s does not parse: %w", path, err)
	}
	if _, ok := doc.MCPServers[serverName]; ok {
		return path, nil
	}
	return "", nil
}

// codexHeader starts the block connect appends; undo finds it by this line.
const codexHeader = "# Added by memhost connect (memhost connect --undo codex removes it)."

func (c codex) connect(o Options, s server) ([]step, error) {
	block := fmt.Sprintf("%s\n[mcp_servers.%s]\ncommand = %s\nargs = [\"mcp\"]\n", codexHeader, serverName, tomlString(s.memhost))
	if s.config != "" {
		block += fmt.Sprintf("env = { MEMHOST_CONFIG = %s }\n", tomlString(s.config))
	}
	return []step{{file: c.config(o), edit: func(before []byte) ([]byte, error) {
		after := bytes.Clone(before)
		if len(after) > 0 {
			if !bytes.HasSuffix(after, []byte("\n")) {
				after = append(after, '\n')
			}
			after = append(after, '\n')
		}
		after = append(after, block...)
		var check map[string]any
		if err := toml.Unmarshal(after, &check); err != nil {
			return nil, fmt.Errorf("%s would not parse with [mcp_servers.%s] appended (is mcp_servers an inline table?): %w", c.config(o), serverName, err)
		}
		return after, nil
	}}}, nil
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	b, _ := toml.Marshal(map[string]string{"v": s})
	_, v, _ := strings.Cut(strings.TrimSpace(string(b)), " = ")
	return v
}

func (c codex) disconnect(o Options, file string, _ *state) []step {
	return []step{{file: file, edit: func(before []byte) ([]byte, error) {
		lines := strings.SplitAfter(string(before), "\n")
		i := slices.IndexFunc(lines, func(l string) bool { return strings.TrimRight(l, "\n") == codexHeader })
		if i < 0 {
			return before, nil
		}
		// The block: the header comment, the table line and its keys, up to the next table.
		j := i + 1
		if j < len(lines) && strings.TrimSpace(lines[j]) == "[mcp_servers."+serverName+"]" {
			for j++; j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "["); j++ {
			}
		}
		if i > 0 && strings.TrimSpace(lines[i-1]) == "" {
			i-- // the blank line connect put before it
		}
		return []byte(strings.Join(lines[:i], "") + strings.Join(lines[j:], "")), nil
	}}}
}
