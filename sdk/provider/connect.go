package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Connector is implemented by a provider that can connect its CLI for
// `memhost connect`: register memhost in the user's own configuration of the
// CLI, for people who start it directly. It is a separate interface so that
// a provider written before it keeps compiling; memhost's client always has
// it, and answers ErrUnimplemented for a plugin without it.
type Connector interface {
	// Connect returns the plan of connecting the CLI. It reads the user's
	// configuration (named by r.Env) and writes nothing: memhost shows the
	// plan, asks, backs the files up and applies it. The same request over
	// the same files must give the same plan: undo asks again and takes the
	// steps back.
	Connect(ctx context.Context, r ConnectRequest) (Connection, error)
}

// ConnectRequest is what a connection registers.
type ConnectRequest struct {
	// Env is the user's environment (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, ...).
	Env map[string]string
	// Memhost is memhost's absolute path: the CLI starts `Memhost mcp` as its
	// stdio MCP server, named ServerName, in the session's directory.
	Memhost string
	// Config is MEMHOST_CONFIG for that server ("": set none).
	Config string
	// Hook is the shell command of memhost's SessionStart hook, for CLIs
	// that have hooks: `... memhost [--config FILE] hook session-start --cli
	// NAME`. SessionEndHook derives its SessionEnd hook from it.
	Hook string
}

// SessionEndHook is the shell command of memhost's SessionEnd hook, which
// journals the session that ended (`memhost hook session-end`): Hook with
// session-end for session-start, or "" when Hook is not memhost's hook command
// (a provider then registers no SessionEnd hook).
func (r ConnectRequest) SessionEndHook() string {
	const start, end = " hook session-start ", " hook session-end "
	if strings.Count(r.Hook, start) != 1 {
		return ""
	}
	return strings.Replace(r.Hook, start, end, 1)
}

// PromptHook is the shell command of memhost's prompt hook, which adds the
// facts relevant to each prompt the user submits (`memhost hook prompt`):
// Hook with prompt for session-start, or "" when Hook is not memhost's hook
// command (a provider then registers no prompt hook).
func (r ConnectRequest) PromptHook() string {
	const start, prompt = " hook session-start ", " hook prompt "
	if strings.Count(r.Hook, start) != 1 {
		return ""
	}
	return strings.Replace(r.Hook, start, prompt, 1)
}

// Connection is the plan of a connection.
type Connection struct {
	// RegisteredIn is where the user's configuration already registers an
	// MCP server named ServerName, or "".
	RegisteredIn string
	// Steps are the changes, in order.
	Steps []ConnectStep
}

// ConnectStep is one change to one of the user's files: exactly one of Run,
// JSONAppend and TextAppend is set.
type ConnectStep struct {
	// File is the absolute path of the file the step changes.
	File string
	// Run runs the CLI's own executable.
	Run *Command
	// JSONAppend appends a value to a list in a JSON file.
	JSONAppend *JSONAppend
	// TextAppend appends a block of text to the file.
	TextAppend *TextAppend
}

// TextAppend appends Text (ending in a newline) to a file, after a blank line
// when the file is not empty. Undo finds the block by its first line and
// removes it up to the next line starting with UntilPrefix (leading blanks
// ignored) that is not one of its own lines, or the end of the file; with no UntilPrefix, exactly its lines.
type TextAppend struct {
	Text        string
	UntilPrefix string
}

// Command is a run of the CLI's executable and the run that takes it back.
type Command struct {
	Args     []string
	UndoArgs []string
}

// JSONAppend appends Value (JSON) to the list at Path (keys from the top
// object) of a JSON object file, creating what is missing; undo removes the
// elements equal to Value and the containers left empty.
type JSONAppend struct {
	Path  []string
	Value string
}

// Validate reports the first field of r that memhost must not send.
func (r ConnectRequest) Validate() error {
	if !cleanAbs(r.Memhost) {
		return fmt.Errorf("memhost %q: must be a clean absolute path", r.Memhost)
	}
	if r.Config != "" && !cleanAbs(r.Config) {
		return fmt.Errorf("config %q: must be a clean absolute path", r.Config)
	}
	for k := range r.Env {
		if err := checkEnvName("env", k); err != nil {
			return err
		}
	}
	return nil
}

// Validate reports the first way in which c breaks the protocol contract.
func (c Connection) Validate() error {
	if c.RegisteredIn != "" && !cleanAbs(c.RegisteredIn) {
		return fmt.Errorf("registered in %q: must be a clean absolute path", c.RegisteredIn)
	}
	if len(c.Steps) == 0 {
		return errors.New("steps: none; a connection changes at least one file")
	}
	for i, s := range c.Steps {
		if err := s.validate(); err != nil {
			return fmt.Errorf("steps[%d]: %w", i, err)
		}
	}
	return nil
}

func (s ConnectStep) validate() error {
	if !cleanAbs(s.File) {
		return fmt.Errorf("file %q: must be a clean absolute path", s.File)
	}
	set := 0
	if s.Run != nil {
		set++
		if len(s.Run.Args) == 0 || len(s.Run.UndoArgs) == 0 {
			return errors.New("run: args and undo args must both be given")
		}
	}
	if s.JSONAppend != nil {
		set++
		if len(s.JSONAppend.Path) == 0 || !json.Valid([]byte(s.JSONAppend.Value)) {
			return errors.New("json append: needs a path and a value in JSON")
		}
	}
	if s.TextAppend != nil {
		set++
		first, _, _ := strings.Cut(s.TextAppend.Text, "\n")
		if strings.TrimSpace(first) == "" || !strings.HasSuffix(s.TextAppend.Text, "\n") {
			return errors.New("text append: must start with a non-blank line and end with a newline")
		}
	}
	if set != 1 {
		return fmt.Errorf("%d changes given; exactly one of run, json append and text append", set)
	}
	return nil
}

func cleanAbs(p string) bool { return filepath.IsAbs(p) && filepath.Clean(p) == p }
