package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

// toyRules is the toy CLI's prompt: `toy -p TASK`, or `toy run TASK...`.
var toyRules = provider.TaskRules{
	Options:        provider.Options{"-m": provider.One, "-p": provider.One, "--prompt": provider.One, "--add": provider.Many},
	PromptOptions:  [][]string{{"-p", "--prompt"}},
	Wrappers:       []string{"run"},
	NoTaskCommands: []string{"mcp"},
	StdinMarker:    "-",
	JoinPositional: true,
}

// declaring is the toy provider declaring its task rules; it implements no Tasker.
type declaring struct{ toy }

func (declaring) Describe(context.Context) (provider.Info, error) {
	return provider.Info{Name: "toy", Version: "1.0.0", Description: "the toy CLI", Executable: "toy", Task: &toyRules}, nil
}

// A provider declares where its CLI takes the prompt in Info.Task; memhost reads the task
// with the same rules in-process, and the SDK serves the Task RPC from them.
func ExampleTaskRules() {
	rules := provider.TaskRules{
		Options:        provider.Options{"--model": provider.One, "-p": provider.One},
		PromptOptions:  [][]string{{"-p"}},
		NoTaskCommands: []string{"login"},
	}
	for _, args := range [][]string{{"--model", "x", "-p", "fix it"}, {"fix", "it"}, {"login"}} {
		task, _ := rules.Task(context.Background(), args)
		fmt.Printf("%q\n", task)
	}
	// Output:
	// "fix it"
	// "fix"
	// ""
}

// TestDeclaredTaskRulesCrossTheWire: the rules come through Describe unchanged, and a provider
// that declares them and implements no Tasker answers the Task RPC by them.
func TestDeclaredTaskRulesCrossTheWire(t *testing.T) {
	t.Parallel()
	p := providertest.Serve(t, declaring{})
	info, err := p.Describe(t.Context())
	require.NoError(t, err)
	require.NotNil(t, info.Task)
	require.True(t, toyRules.Equal(*info.Task), "%+v", *info.Task)
	for args, want := range map[string]string{
		"-m x -p fix-it":          "fix-it",
		"--prompt=fix-it":         "fix-it",
		"run fix the test":        "fix the test",
		"--add a b":               "",
		"-m x fix the test":       "fix the test",
		"mcp list":                "",
		"run -":                   "",
		"-p":                      "",
		"-- --weird prompt words": "--weird prompt words",
	} {
		got, err := p.(provider.Tasker).Task(t.Context(), strings.Fields(args))
		require.NoError(t, err)
		require.Equal(t, want, got, args)
		local, err := toyRules.Task(t.Context(), strings.Fields(args))
		require.NoError(t, err)
		require.Equal(t, want, local, args)
	}
	providertest.Exercise(t, p)
}

// TestTaskRulesAreChecked: a declaration breaking its bounds is refused by name, on both
// sides of the wire.
func TestTaskRulesAreChecked(t *testing.T) {
	t.Parallel()
	require.NoError(t, toyRules.Validate())
	for want, r := range map[string]provider.TaskRules{
		"must start with '-'":                {Options: provider.Options{"p": provider.One}},
		"arity 7":                            {Options: provider.Options{"-p": 7}},
		"must be one of Options taking":      {PromptOptions: [][]string{{"-p"}}},
		"prompt option has no spelling":      {PromptOptions: [][]string{{}}},
		"command \"-x\": must not start":     {Wrappers: []string{"-x"}},
		"command is empty":                   {NoTaskCommands: []string{""}},
		"exceeds 64":                         {NoTaskCommands: []string{strings.Repeat("a", 65)}},
		"entries, exceeds 1000":              {NoTaskCommands: make([]string, 1001)},
		"must not hold '=', spaces or NUL":   {Options: provider.Options{"--a=b": provider.One}},
		"stdin marker is 65 bytes, exceeds ": {StdinMarker: strings.Repeat("-", 65)},
	} {
		require.ErrorContains(t, r.Validate(), want)
		info := provider.Info{Name: "toy", Executable: "toy", Task: &r}
		err := info.Validate()
		require.ErrorContains(t, err, "task rules: ")
		require.ErrorContains(t, err, want)
	}
}
