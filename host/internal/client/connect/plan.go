package connect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/memhost/memhost/sdk/provider"
)

// Planner is the CLI's provider plugin: it knows the CLI's files and commands and answers
// the plan of connecting it (provider.Connector).
type Planner interface {
	Connect(ctx context.Context, r provider.ConnectRequest) (provider.Connection, error)
}

// plan asks the provider what connecting the CLI takes.
func (o Options) plan(ctx context.Context, hook string) (provider.Connection, error) {
	if o.Provider == nil {
		return provider.Connection{}, fmt.Errorf("no provider plugin for %s", o.CLI)
	}
	return o.Provider.Connect(ctx, provider.ConnectRequest{Env: o.Env, Memhost: o.Memhost, Config: o.Config, Hook: hook})
}

// connectSteps are the steps that apply the plan.
func connectSteps(o Options, c provider.Connection) []step {
	steps := make([]step, 0, len(c.Steps))
	for _, s := range c.Steps {
		switch {
		case s.Run != nil:
			steps = append(steps, step{file: s.File, run: s.Run.Args, show: commandLine(o.executableName(), s.Run.Args)})
		case s.JSONAppend != nil:
			steps = append(steps, step{file: s.File, edit: appendJSON(s.JSONAppend.Path, s.JSONAppend.Value)})
		case s.TextAppend != nil:
			steps = append(steps, step{file: s.File, edit: appendText(s.TextAppend.Text)})
		}
	}
	return steps
}

// undoSteps are the steps that take memhost's entries out of file, which was changed since
// connect, last step first. The CLI's own undo command runs only while the provider still
// finds memhost registered (the user may have removed it already).
func undoSteps(o Options, c provider.Connection, file string) []step {
	var steps []step
	for _, s := range slices.Backward(c.Steps) {
		if s.File != file {
			continue
		}
		switch {
		case s.Run != nil && c.RegisteredIn != "":
			steps = append(steps, step{file: file, run: s.Run.UndoArgs, show: commandLine(o.executableName(), s.Run.UndoArgs)})
		case s.JSONAppend != nil:
			steps = append(steps, step{file: file, edit: removeJSON(s.JSONAppend.Path, s.JSONAppend.Value)})
		case s.TextAppend != nil:
			steps = append(steps, step{file: file, edit: removeText(*s.TextAppend)})
		}
	}
	return steps
}

// commandLine is a command as connect shows it, quoted for the shell.
func commandLine(name string, args []string) string {
	quoted := []string{name}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	return strings.Join(quoted, " ")
}

// appendJSON appends value to the list at path of a JSON settings file, creating the objects
// and the list when absent and keeping everything else in order.
func appendJSON(path []string, value string) func([]byte) ([]byte, error) {
	return func(before []byte) ([]byte, error) {
		doc, err := parseDocument(before)
		if err != nil {
			return nil, fmt.Errorf("settings do not parse: %w", err)
		}
		elem, err := parseValue([]byte(value))
		if err != nil {
			return nil, err
		}
		parent := doc
		for _, key := range path[:len(path)-1] {
			if parent, err = parent.child(key); err != nil {
				return nil, err
			}
		}
		last := path[len(path)-1]
		var list []any
		if v, ok := parent.get(last); ok && v != nil {
			if list, ok = v.([]any); !ok {
				return nil, fmt.Errorf("%s is not a list", strings.Join(path, "."))
			}
		}
		parent.set(last, append(list, elem))
		return doc.encode()
	}
}

// removeJSON takes the elements equal to value out of the list at path, and the containers
// left empty. A file without it is left alone.
func removeJSON(path []string, value string) func([]byte) ([]byte, error) {
	return func(before []byte) ([]byte, error) {
		doc, err := parseDocument(before)
		if err != nil {
			return nil, fmt.Errorf("settings do not parse: %w", err)
		}
		var want any
		if err := json.Unmarshal([]byte(value), &want); err != nil {
			return nil, err
		}
		parents := []*object{doc}
		for _, key := range path[:len(path)-1] {
			next, ok := parents[len(parents)-1].vals[key].(*object)
			if !ok {
				return before, nil
			}
			parents = append(parents, next)
		}
		last := path[len(path)-1]
		list, _ := parents[len(parents)-1].vals[last].([]any)
		kept := slices.DeleteFunc(slices.Clone(list), func(e any) bool { return equalJSON(e, want) })
		if len(kept) == len(list) {
			return before, nil
		}
		parents[len(parents)-1].set(last, kept)
		// Remove what is left empty, from the list up.
		for i := len(path) - 1; i >= 0; i-- {
			v := parents[i].vals[path[i]]
			if l, ok := v.([]any); ok && len(l) > 0 {
				break
			}
			if o, ok := v.(*object); ok && len(o.keys) > 0 {
				break
			}
			parents[i].remove(path[i])
		}
		return doc.encode()
	}
}

// equalJSON compares an element of a parsed document with a plain decoded value.
func equalJSON(elem, want any) bool {
	var b bytes.Buffer
	if writeValue(&b, elem, "") != nil {
		return false
	}
	var got any
	return json.Unmarshal(b.Bytes(), &got) == nil && reflect.DeepEqual(got, want)
}

// appendText appends block after a blank line (when the file has content).
func appendText(block string) func([]byte) ([]byte, error) {
	return func(before []byte) ([]byte, error) {
		after := bytes.Clone(before)
		if len(after) > 0 {
			if !bytes.HasSuffix(after, []byte("\n")) {
				after = append(after, '\n')
			}
			after = append(after, '\n')
		}
		return append(after, block...), nil
	}
}

// removeText takes the block out: from its first line up to the next line starting with
// UntilPrefix that is not one of its own lines, or exactly its lines, and the blank line appendText put before it.
func removeText(t provider.TextAppend) func([]byte) ([]byte, error) {
	first, _, _ := strings.Cut(t.Text, "\n")
	return func(before []byte) ([]byte, error) {
		lines := strings.SplitAfter(string(before), "\n")
		i := slices.IndexFunc(lines, func(l string) bool { return strings.TrimRight(l, "\n") == first })
		if i < 0 {
			return before, nil
		}
		j := i + strings.Count(t.Text, "\n")
		if t.UntilPrefix != "" {
			own := map[string]bool{}
			for _, l := range strings.Split(t.Text, "\n") {
				own[strings.TrimSpace(l)] = true
			}
			for j = i + 1; j < len(lines); j++ {
				if l := strings.TrimSpace(lines[j]); strings.HasPrefix(l, t.UntilPrefix) && !own[l] {
					break
				}
			}
		}
		j = min(j, len(lines))
		if i > 0 && strings.TrimSpace(lines[i-1]) == "" {
			i-- // the blank line connect put before it
		}
		return []byte(strings.Join(lines[:i], "") + strings.Join(lines[j:], "")), nil
	}
}
