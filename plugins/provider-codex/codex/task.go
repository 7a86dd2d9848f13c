package codex

import (
	"context"
	"slices"

	"github.com/memhost/memhost/sdk/provider"
)

// options are Codex's (0.169) options that take values, global and exec's,
// as its parser (clap) reads them: --image takes every file up to the next
// option.
var options = provider.Options{
	"-c": provider.One, "--config": provider.One, "--enable": provider.One, "--disable": provider.One,
	"--remote": provider.One, "--remote-auth-token-env": provider.One, "-m": provider.One, "--model": provider.One,
	"--local-provider": provider.One, "-p": provider.One, "--profile": provider.One, "-s": provider.One,
	"--sandbox": provider.One, "-a": provider.One, "--ask-for-approval": provider.One, "-C": provider.One,
	"--cd": provider.One, "--add-dir": provider.One, "--thread-source": provider.One, "--cyber-access-program": provider.One,
	"--output-schema": provider.One, "--color": provider.One, "-o": provider.One, "--output-last-message": provider.One,
	"-i": provider.Many, "--image": provider.Many,
}

// sessionCommands start or act on a session without a new prompt of the
// user's.
var sessionCommands = []string{"resume", "fork", "review", "agents", "help"}

// taskRules: Codex's prompt is `codex exec TASK` (headless) or `codex TASK`
// (an interactive session's first prompt). A prompt of "-" is read from
// stdin, and a management or session command carries none.
var taskRules = provider.TaskRules{
	Options: options, Wrappers: []string{"exec", "e"}, StdinMarker: "-",
	NoTaskCommands: slices.Concat(management, sessionCommands),
}

// Task reads the prompt by the declared rules (Info.Task), as memhost does.
func (*Provider) Task(ctx context.Context, args []string) (string, error) {
	return taskRules.Task(ctx, args)
}
