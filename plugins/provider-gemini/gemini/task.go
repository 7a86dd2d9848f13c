package gemini

import (
	"context"

	"github.com/memhost/memhost/sdk/provider"
)

// options are Gemini CLI's (0.61) options that take values, as its parser
// (yargs) reads them: an array option takes every argument up to the next
// option.
var options = provider.Options{
	"-m": provider.One, "--model": provider.One, "-p": provider.One, "--prompt": provider.One,
	"-i": provider.One, "--prompt-interactive": provider.One, "-w": provider.Optional, "--worktree": provider.Optional,
	"--approval-mode": provider.One, "-r": provider.One, "--resume": provider.One, "--session-file": provider.One,
	"--session-id": provider.One, "--delete-session": provider.One, "-o": provider.One, "--output-format": provider.One,
	"--policy": provider.Many, "--admin-policy": provider.Many, "--allowed-mcp-server-names": provider.Many,
	"--allowed-tools": provider.Many, "-e": provider.Many, "--extensions": provider.Many, "--include-directories": provider.Many,
}

// taskRules: Gemini CLI's prompt is the value of -p/--prompt (headless) or
// -i/--prompt-interactive, else the words of its positional query (`gemini
// fix the flaky test`). A management command carries none.
var taskRules = provider.TaskRules{
	Options: options, PromptOptions: [][]string{{"-p", "--prompt"}, {"-i", "--prompt-interactive"}},
	NoTaskCommands: management, JoinPositional: true,
}

// Task reads the prompt by the declared rules (Info.Task), as memhost does.
func (*Provider) Task(ctx context.Context, args []string) (string, error) {
	return taskRules.Task(ctx, args)
}
