package gemini

import (
	"context"
	"slices"
	"strings"

	"github.com/memhost/memhost/sdk/provider"
)

var _ provider.Tasker = (*Provider)(nil)

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

// Task is Gemini CLI's prompt: the value of -p/--prompt (headless) or
// -i/--prompt-interactive, else the words of its positional query (`gemini
// fix the flaky test`). A management command carries none.
func (*Provider) Task(ctx context.Context, args []string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s := options.Scan(args)
	if p := s.Value("-p", "--prompt"); p != "" {
		return p, nil
	}
	if p := s.Value("-i", "--prompt-interactive"); p != "" {
		return p, nil
	}
	if len(s.Positional) == 0 || slices.Contains(management, s.Positional[0]) {
		return "", nil
	}
	return strings.Join(s.Positional, " "), nil
}
