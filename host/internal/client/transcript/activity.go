package transcript

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/memhost/memhost/sdk/provider"
)

// Activity is what a session did with memhost, as its transcript shows it: ids and numbers
// only, for the session's record (docs/value.md). No text of the session leaves here.
type Activity struct {
	// Given are the memory ids a memory_load_context result showed the session (its banner,
	// loaded by a tool call where no hook or spawn gave it).
	Given []string
	// Retrieved are the memory ids memhost's search and get results showed the session.
	Retrieved []string
	// Cited are the short ids the agent named in its answers ("Memory used: [id]").
	Cited []string
	// Stored are the facts the session stored, in order, each with what finding it cost.
	Stored []Stored
	// Tokens sums what the session's model calls cost, and Calls counts them; both zero when
	// the CLI records no usage (Usage says whether it did).
	Tokens int64
	Calls  int
	Usage  bool
}

// Stored is a fact the session stored (memory_store) and its discovery cost: the tokens of the
// model calls since the session's start or its previous store, their count, and the wall time
// between; stores made in one turn share that run-up evenly.
type Stored struct {
	ID      string
	Tokens  int64
	Calls   int
	Seconds float64
}

// Activity is the session's activity with memhost: ids and numbers read from its turns.
// Which CLIs record usage: docs/value.md.
func (t Turns) Activity() Activity { return activity(t.turns, t.start) }

// The ids memhost's tool results name, in the compact text its MCP tools answer (package
// mcpserver's Brief): "(id 3f2a9c1e, score 0.82)" in search hits, "Memory 3f2a9c1e [fact]:" of
// a get, "Stored as memory 3f2a9c1e." of a store, "- [3f2a9c1e] fact:" in a banner. Any hex
// word of 8 to 32 digits behind "id ", "memory " or "[": the host counts only ids that name a
// memory of the project, so a look-alike in a fact's text names nothing.
var (
	resultID = regexp.MustCompile(`(?:\bid |\b[Mm]emory |\[)([0-9a-f]{8,32})\b`)
	citedID  = regexp.MustCompile(`\[([0-9a-f]{8,32})\]`)
	usedLine = regexp.MustCompile(`(?i)memory used:([^\n]*)`)
	hexWord  = regexp.MustCompile(`\b[0-9a-f]{8,32}\b`)
)

// memhostTool is a tool name's memhost tool (memory_store for mcp__memhost__memory_store, as
// Claude Code and Codex name it, or mcp_memhost_memory_store, as Gemini CLI does), or "".
func memhostTool(name string) string {
	for _, p := range []string{"mcp__memhost__", "mcp_memhost_"} {
		if t, ok := strings.CutPrefix(name, p); ok {
			return t
		}
	}
	return ""
}

func activity(turns []provider.Turn, start time.Time) Activity {
	var a Activity
	results := map[string]string{}
	for _, t := range turns {
		for _, r := range t.Results {
			results[r.CallID] += r.Text
		}
	}
	var (
		tokens int64
		calls  int
		since  = start
	)
	for _, t := range turns {
		if t.Tokens > 0 {
			a.Usage = true
			a.Tokens += t.Tokens
			a.Calls++
			tokens += t.Tokens
			calls++
		}
		var stored []string
		for _, c := range t.Calls {
			result := c.Result + results[c.ID]
			switch memhostTool(c.Name) {
			case "memory_store":
				if m := resultID.FindStringSubmatch(result); m != nil {
					stored = append(stored, m[1])
				}
			case "memory_search", "project_search", "memory_get":
				a.Retrieved = appendIDs(a.Retrieved, result)
			case "memory_load_context":
				a.Given = appendIDs(a.Given, result)
			}
		}
		if len(stored) > 0 {
			secs := 0.0
			if !t.At.IsZero() && t.At.After(since) {
				secs = t.At.Sub(since).Seconds()
				since = t.At
			}
			n := int64(len(stored))
			for i, id := range stored {
				share := tokens / n
				if int64(i) < tokens%n {
					share++
				}
				a.Stored = append(a.Stored, Stored{ID: id, Tokens: share, Calls: calls / len(stored), Seconds: secs / float64(n)})
			}
			tokens, calls = 0, 0
		}
		if t.Role == "assistant" {
			a.Cited = appendCited(a.Cited, t.Text)
		}
	}
	if !a.Usage {
		for i := range a.Stored {
			a.Stored[i].Tokens, a.Stored[i].Calls = 0, 0
		}
	}
	return a
}

func appendIDs(ids []string, text string) []string {
	for _, m := range resultID.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// appendCited adds the short ids an answer cites: in brackets, or listed after "Memory used:".
func appendCited(ids []string, text string) []string {
	var found []string
	for _, m := range citedID.FindAllStringSubmatch(text, -1) {
		found = append(found, m[1])
	}
	for _, line := range usedLine.FindAllStringSubmatch(text, -1) {
		found = append(found, hexWord.FindAllString(line[1], -1)...)
	}
	for _, id := range found {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}
