package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// TaskRules declare where a CLI's arguments carry the user's prompt, so that
// memhost can read the task without the plugin running: a provider that sets
// Info.Task has memhost read its CLI's task in-process (from a cache of the
// rules the plugin binary last declared) while the plugin starts, and the SDK
// answers the Task RPC from the same rules. A provider whose CLI reads its
// prompt in a way the rules cannot say implements Tasker instead.
//
// The rules are applied in this order: the first of PromptOptions given a
// non-empty value is the task; else the positional arguments (Options.Scan)
// are read, after dropping one leading Wrappers command; none, a first one
// equal to StdinMarker or in NoTaskCommands is no task; else the task is the
// first positional argument, or all of them joined by spaces when
// JoinPositional.
type TaskRules struct {
	// Options are the CLI's options that take values, as its parser reads them.
	Options Options
	// PromptOptions are options whose value is the prompt (gemini -p), in
	// order of precedence, each by all its spellings ({"-p", "--prompt"}).
	PromptOptions [][]string
	// Wrappers are commands that take the prompt after them (codex exec): one
	// leading wrapper is skipped.
	Wrappers []string
	// NoTaskCommands are the CLI's commands that carry no prompt (claude mcp,
	// codex resume).
	NoTaskCommands []string
	// StdinMarker is the prompt argument that means "read it from stdin"
	// (codex -); "" when there is none.
	StdinMarker string
	// JoinPositional makes every positional argument a word of the prompt
	// (gemini fix the flaky test) rather than the first alone.
	JoinPositional bool
}

// Task reads the prompt args carry by the rules, or "" when they carry none;
// it is what memhost and the Task RPC do with declared rules.
func (r TaskRules) Task(ctx context.Context, args []string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return r.task(args), nil
}

func (r TaskRules) task(args []string) string {
	s := r.Options.Scan(args)
	for _, spellings := range r.PromptOptions {
		if p := s.Value(spellings...); p != "" {
			return p
		}
	}
	pos := s.Positional
	if len(pos) > 0 && slices.Contains(r.Wrappers, pos[0]) {
		pos = pos[1:]
	}
	if len(pos) == 0 || (r.StdinMarker != "" && pos[0] == r.StdinMarker) || slices.Contains(r.NoTaskCommands, pos[0]) {
		return ""
	}
	if r.JoinPositional {
		return strings.Join(pos, " ")
	}
	return pos[0]
}

// Equal reports whether r and o read every argument list alike (nil and
// empty lists are the same).
func (r TaskRules) Equal(o TaskRules) bool {
	return maps.Equal(r.Options, o.Options) &&
		slices.EqualFunc(r.PromptOptions, o.PromptOptions, slices.Equal) &&
		slices.Equal(r.Wrappers, o.Wrappers) && slices.Equal(r.NoTaskCommands, o.NoTaskCommands) &&
		r.StdinMarker == o.StdinMarker && r.JoinPositional == o.JoinPositional
}

// Bounds of TaskRules: a declaration is read from every spawn's cache, so it
// stays small.
const (
	// MaxTaskRuleEntries bounds the options, prompt option spellings and
	// commands of TaskRules together.
	MaxTaskRuleEntries = 1000
	// MaxTaskRuleWordBytes bounds each option spelling, command and the
	// stdin marker.
	MaxTaskRuleWordBytes = 64
)

// Validate reports the first entry of r that breaks the bounds or names an
// option that is not one.
func (r TaskRules) Validate() error {
	n := len(r.Options) + len(r.Wrappers) + len(r.NoTaskCommands)
	for _, g := range r.PromptOptions {
		n += len(g)
	}
	if n > MaxTaskRuleEntries {
		return fmt.Errorf("%d entries, exceeds %d", n, MaxTaskRuleEntries)
	}
	for name, a := range r.Options {
		if err := checkRuleWord("option", name, true); err != nil {
			return err
		}
		if a < Flag || a > Many {
			return fmt.Errorf("option %q: arity %d is not Flag, One, Optional or Many", name, a)
		}
	}
	for _, g := range r.PromptOptions {
		if len(g) == 0 {
			return errors.New("prompt option has no spelling")
		}
		for _, name := range g {
			if r.Options[name] == Flag {
				return fmt.Errorf("prompt option %q: must be one of Options taking a value", name)
			}
		}
	}
	for _, c := range slices.Concat(r.Wrappers, r.NoTaskCommands) {
		if err := checkRuleWord("command", c, false); err != nil {
			return err
		}
	}
	if r.StdinMarker != "" && len(r.StdinMarker) > MaxTaskRuleWordBytes {
		return fmt.Errorf("stdin marker is %d bytes, exceeds %d", len(r.StdinMarker), MaxTaskRuleWordBytes)
	}
	return nil
}

// checkRuleWord checks an option spelling (which starts with '-') or a
// command (which does not).
func checkRuleWord(what, w string, option bool) error {
	switch {
	case w == "":
		return fmt.Errorf("%s is empty", what)
	case len(w) > MaxTaskRuleWordBytes:
		return fmt.Errorf("%s %q is %d bytes, exceeds %d", what, w[:MaxTaskRuleWordBytes], len(w), MaxTaskRuleWordBytes)
	case strings.ContainsAny(w, "\x00= \t\n"):
		return fmt.Errorf("%s %q: must not hold '=', spaces or NUL", what, w)
	case option != strings.HasPrefix(w, "-"):
		if option {
			return fmt.Errorf("option %q: must start with '-'", w)
		}
		return fmt.Errorf("command %q: must not start with '-'", w)
	}
	return nil
}
