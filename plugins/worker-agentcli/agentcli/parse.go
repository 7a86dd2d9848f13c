package agentcli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"unicode/utf8"

	"github.com/memhost/memhost/sdk/worker"
)

// maxQuoted bounds what an error quotes of a CLI's output.
const maxQuoted = 200

// outputJSON returns a CLI's stdout as the one JSON document it must be
// (jsonl: one JSON object per line), or an error wrapping ErrBadAnswer that
// says what is wrong: terminal escape codes, prose around the JSON, nothing
// at all, output past the limit.
func outputJSON(cli CLI, r ran, jsonl bool) ([]byte, error) {
	out := bytes.TrimSpace(r.stdout.bytes())
	switch {
	case r.stdout.overflow:
		return nil, fmt.Errorf("%w: %s printed more than %d bytes", worker.ErrBadAnswer, cli, maxStdout)
	case len(out) == 0:
		return nil, fmt.Errorf("%w: %s printed nothing on stdout", worker.ErrBadAnswer, cli)
	case bytes.IndexByte(out, 0x1b) >= 0:
		return nil, fmt.Errorf("%w: %s's output carries terminal escape codes, not plain JSON", worker.ErrBadAnswer, cli)
	}
	lines := [][]byte{out}
	if jsonl {
		lines = bytes.Split(out, []byte("\n"))
	}
	for _, line := range lines {
		if line = bytes.TrimSpace(line); len(line) > 0 && !oneObject(line) {
			return nil, fmt.Errorf("%w: %s's output is not its JSON alone, it has text around it: %s", worker.ErrBadAnswer, cli, quote(string(line)))
		}
	}
	return out, nil
}

// runOutput is outputJSON of r, except that a run that failed and gave no JSON failed (failed)
// rather than answered badly.
func runOutput(cli CLI, r ran, jsonl bool) ([]byte, error) {
	out, err := outputJSON(cli, r, jsonl)
	if err != nil && r.err != nil {
		return nil, failed(cli, r)
	}
	return out, err
}

// decodeRun decodes the one JSON object of r's output (runOutput), which must be what (e.g.
// "a result object") and satisfy valid: anything else is the run's failure when it failed,
// else an ErrBadAnswer.
func decodeRun[T any](cli CLI, r ran, what string, valid func(T) bool) (T, error) {
	var v T
	out, err := runOutput(cli, r, false)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(out, &v); err != nil || !valid(v) {
		if r.err != nil {
			return v, failed(cli, r)
		}
		return v, fmt.Errorf("%w: %s's JSON is not %s", worker.ErrBadAnswer, cli, what)
	}
	return v, nil
}

// oneObject reports whether b is exactly one JSON object.
func oneObject(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	var v map[string]json.RawMessage
	if dec.Decode(&v) != nil {
		return false
	}
	_, err := dec.Token()
	return err == io.EOF
}

// failed is the error of a run that did not give its JSON: a missing
// executable, an exit status with what stderr said last.
func failed(cli CLI, r ran) error {
	var exit *exec.ExitError
	if errors.As(r.err, &exit) {
		return fmt.Errorf("%w: %s exited with %s: %s", worker.ErrUnavailable, cli, exit.ProcessState, quote(lastLine(r.stderr.bytes())))
	}
	return fmt.Errorf("%w: %s could not run: %w", worker.ErrUnavailable, cli, r.err)
}

// cliError is the typed error for an error a CLI reported in its JSON:
// rate limits and quotas are ErrRateLimited (retried later), a refusal is
// ErrRefused, anything else (no login, the service down) ErrUnavailable.
func cliError(cli CLI, msg string) error {
	lower := strings.ToLower(msg)
	typed := worker.ErrUnavailable
	switch {
	case containsAny(lower, "429", "rate limit", "rate_limit", "quota", "resource_exhausted", "too many requests", "usage limit", "overloaded"):
		typed = worker.ErrRateLimited
	case containsAny(lower, "refus"):
		typed = worker.ErrRefused
	}
	return fmt.Errorf("%w: %s reported an error: %s", typed, cli, quote(msg))
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// lastLine is the last non-empty line of b: where a CLI says why it failed.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// quote makes a CLI's text fit an error message: one line, no control
// characters or escape codes, bounded.
func quote(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(no message)"
	}
	if len(s) <= maxQuoted {
		return s
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
