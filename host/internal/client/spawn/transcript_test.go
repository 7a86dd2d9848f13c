package spawn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// claudeTranscriptHook writes, as Claude Code would, the session's transcript (its id from
// --session-id, its cwd, a timestamp of now) and beside it a decoy: another session of the same
// project directory.
const claudeTranscriptHook = `
sid=""
for a in "$@"; do case "$a" in --session-id=*) sid="${a#--session-id=}";; esac; done
dir="$HOME/.claude/projects/$(pwd | sed 's/[^A-Za-z0-9]/-/g')"
mkdir -p "$dir"
now=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
printf '{"type":"user","sessionId":"%s","cwd":"%s","timestamp":"%s","message":{"role":"user","content":"Move the cron jobs to nomad."}}\n' "$sid" "$(pwd)" "$now" > "$dir/$sid.jsonl"
printf '{"type":"assistant","sessionId":"%s","cwd":"%s","timestamp":"%s","message":{"role":"assistant","content":[{"type":"text","text":"Moved: cron runs on nomad now."}]}}\n' "$sid" "$(pwd)" "$now" >> "$dir/$sid.jsonl"
printf '{"type":"user","sessionId":"decoy","cwd":"%s","timestamp":"%s","message":{"role":"user","content":"DECOY of another session"}}\n' "$(pwd)" "$now" > "$dir/decoy.jsonl"
`

// TestTheSessionsTranscriptGoesWithItsJournalEntry: when Claude Code ends, memhost run reads
// the session's own transcript (found through the provider's Finish) and sends its excerpt
// with the journal entry, for the summary; the other session's transcript in the same folder
// is never read.
func TestTheSessionsTranscriptGoesWithItsJournalEntry(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude", "-p", "move the crons")
	hook := filepath.Join(t.TempDir(), "hook.sh")
	require.NoError(t, os.WriteFile(hook, []byte(claudeTranscriptHook), 0o600))
	b.opts.Env = append(b.opts.Env, "FAKE_HOOK="+hook)
	res, rec := b.run(t)
	require.Equal(t, 0, res.ExitCode)
	sessionID := strings.TrimPrefix(rec.args()[3], "--session-id=")
	require.Equal(t, sessionID, res.Session.ID)
	entries := b.host.entries()
	require.Len(t, entries, 1)
	e := entries[0].Entry
	require.Empty(t, e.TranscriptNote)
	require.Equal(t, "user: Move the cron jobs to nomad.\nassistant: Moved: cron runs on nomad now.", e.Transcript)
	require.NotContains(t, e.Transcript, "DECOY")
}

// TestATranscriptOfAnotherDirectoryIsNotSent: a transcript whose working directory is not the
// session's (the cwd canary) is not read; the journal entry says why and carries no excerpt.
func TestATranscriptOfAnotherDirectoryIsNotSent(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude", "-p", "hi")
	hook := filepath.Join(t.TempDir(), "hook.sh")
	require.NoError(t, os.WriteFile(hook, []byte(strings.ReplaceAll(claudeTranscriptHook, `"$(pwd)" "$now" > "$dir/$sid.jsonl"`, `"/elsewhere" "$now" > "$dir/$sid.jsonl"`)), 0o600))
	b.opts.Env = append(b.opts.Env, "FAKE_HOOK="+hook)
	b.run(t)
	e := b.host.entries()[0].Entry
	require.Empty(t, e.Transcript)
	require.Equal(t, "the transcript's working directory is not the project's", e.TranscriptNote)
}
