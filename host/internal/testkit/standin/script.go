package standin

import (
	"encoding/json"
	"fmt"
)

// Turn is one scripted model answer to a request that offers tools: text, or a tool call.
type Turn struct {
	// Text is the answer when Call is nil.
	Text string
	// Call, when set, makes the answer a call of one tool.
	Call *Call
}

// Call names a tool and its JSON arguments. Name matches a tool the request offers exactly, or
// else as a suffix after a separator ("memory_store" matches "mcp__memhost__memory_store").
type Call struct {
	Name string
	Args json.RawMessage
}

// Say is a turn that answers text.
func Say(text string) Turn { return Turn{Text: text} }

// CallTool is a turn that calls the tool named (or suffixed) name with args marshalled to JSON.
// It panics on arguments that cannot be marshalled: a script is written by a test, and such a
// script is a bug in that test.
func CallTool(name string, args any) Turn {
	b, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("standin: arguments of %s: %v", name, err))
	}
	return Turn{Call: &Call{Name: name, Args: b}}
}

// IssuedCall is a tool call the stand-in sent to the CLI.
type IssuedCall struct {
	// ID is the call id the CLI must echo with the result.
	ID string
	// Name is the tool's full name as the CLI offered it (with its namespace, if any).
	Name string
	// Args are the JSON arguments sent.
	Args json.RawMessage
	// Request is the index (in Requests) of the request this call answered.
	Request int
	// Loader is true for a call the stand-in made on its own to load a deferred tool
	// (Claude Code's ToolSearch) before the scripted call.
	Loader bool
}
