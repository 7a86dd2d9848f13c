package testplugins

import (
	"path/filepath"
	"testing"
)

// FakeCLI stands for an agent CLI (claude, codex, gemini) in tests of memhost run. It records
// what it was started with in the directory $FAKE_OUT: its arguments ("args", NUL-separated),
// environment ("env", as env -0 prints it), working directory ("pwd"), its pid ("pid"), a copy
// of each file an option named (--opt=/PATH: "file-<name>") and of the homes it was pointed at
// ("codex-home", "gemini-home"; links kept as links). It sources the shell file $FAKE_HOOK when
// set (a test's extra step, such as writing the session's transcript). Then it acts as $FAKE_MODE says: "crash"
// kills itself with SIGSEGV; "wait" writes "ready" and waits for SIGTERM or SIGINT, writing
// "signal" (TERM or INT) and exiting 143 or 130; otherwise it exits with $FAKE_EXIT (0).
const FakeCLI = `#!/bin/sh
out="$FAKE_OUT"
mkdir -p "$out"
: > "$out/args"
for a in "$@"; do printf '%s\0' "$a" >> "$out/args"; done
env -0 > "$out/env"
pwd > "$out/pwd"
for a in "$@"; do
  case "$a" in --*=/*) p="${a#*=}"; [ -f "$p" ] && cp "$p" "$out/file-$(basename "$p")";; esac
done
[ -n "$CODEX_HOME" ] && cp -RP "$CODEX_HOME" "$out/codex-home"
[ -n "$GEMINI_CLI_HOME" ] && cp -RP "$GEMINI_CLI_HOME" "$out/gemini-home"
echo $$ > "$out/pid"
[ -n "$FAKE_HOOK" ] && . "$FAKE_HOOK"
case "$FAKE_MODE" in
  crash) kill -SEGV $$ ;;
  wait)
    trap 'echo TERM > "$out/signal"; exit 143' TERM
    trap 'echo INT > "$out/signal"; exit 130' INT
    echo ready > "$out/ready"
    while :; do sleep 0.02; done ;;
esac
exit "${FAKE_EXIT:-0}"
`

// FakeCLIs installs FakeCLI in dir under the name of every provider's CLI.
func FakeCLIs(tb testing.TB, dir string) {
	tb.Helper()
	for _, cli := range ProviderCLIs {
		WriteScript(tb, filepath.Join(dir, cli), FakeCLI)
	}
}
