package claude

import (
	"context"

	"github.com/memhost/memhost/sdk/provider"
)

// options are Claude Code's (2.1.x) options that take values, as its parser
// (commander) reads them: a variadic option takes every argument up to the
// next option, so `claude --add-dir ../lib "fix it"` has no prompt.
var options = provider.Options{
	"--agent": provider.One, "--agents": provider.One, "--append-system-prompt": provider.One,
	"--append-system-prompt-file": provider.One, "--system-prompt": provider.One, "--system-prompt-file": provider.One,
	"--autocompact": provider.One, "--debug-file": provider.One, "--effort": provider.One, "--environment": provider.One,
	"--fallback-model": provider.One, "--input-format": provider.One, "--json-schema": provider.One,
	"--max-budget-usd": provider.One, "--max-turns": provider.One, "--model": provider.One, "-n": provider.One, "--name": provider.One,
	"--output-format": provider.One, "--permission-mode": provider.One, "--permission-prompts": provider.One,
	"--permission-prompt-tool": provider.One, "--plugin-dir": provider.One, "--plugin-url": provider.One,
	"--remote-control-session-name-prefix": provider.One, "--session-id": provider.One, "--setting-sources": provider.One,
	"--settings": provider.One, "--system-prompt-snapshot": provider.One, "--resume-session-at": provider.One,
	"--cloud": provider.Optional, "-d": provider.Optional, "--debug": provider.Optional, "--from-pr": provider.Optional,
	"--prompt-suggestions": provider.Optional, "--remote-control": provider.Optional, "-r": provider.Optional,
	"--resume": provider.Optional, "--teleport": provider.Optional, "-w": provider.Optional, "--worktree": provider.Optional,
	"--add-dir": provider.Many, "--allowedTools": provider.Many, "--allowed-tools": provider.Many, "--betas": provider.Many,
	"--disallowedTools": provider.Many, "--disallowed-tools": provider.Many, "--file": provider.Many,
	"--mcp-config": provider.Many, "--tools": provider.Many,
}

// taskRules: Claude Code's prompt is its first positional argument, for
// `claude -p TASK` and `claude TASK` (an interactive session's first prompt)
// alike. A subcommand (claude mcp, ...) carries none, nor does a prompt piped
// on stdin.
var taskRules = provider.TaskRules{Options: options, NoTaskCommands: subcommands}

// Task reads the prompt by the declared rules (Info.Task), as memhost does.
func (*Provider) Task(ctx context.Context, args []string) (string, error) {
	return taskRules.Task(ctx, args)
}
