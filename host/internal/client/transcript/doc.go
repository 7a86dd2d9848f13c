// Package transcript owns reading an agent CLI's session transcript for the session summary
// (issue 18; seed 001's isolation guarantees): which file, which of its turns, and how much of
// them a worker may see. It is the one place that knows each CLI's transcript layout:
//
//   - Claude Code: <config dir>/projects/<encoded cwd>/<session id>.jsonl, one entry per line,
//     each with sessionId, cwd and timestamp; user and assistant entries carry the message.
//   - Codex: <CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl; the first line
//     is session_meta (id, cwd), then timestamped response_item messages.
//   - Gemini CLI: <home>/.gemini/tmp/<project>/chats/session-<time>-<id prefix>.jsonl; the first
//     line names sessionId and projectHash (sha256 of the working directory), then message
//     records and {"$set": {"messages": [...]}} updates.
//
// It reads two things: the excerpt of a session's turns a worker summarises (Read), and the
// session's activity with memhost for its record (ReadActivity: the ids its memhost tool
// results showed, those its answers cited, the facts it stored and what finding each cost, from
// the usage each CLI records: Claude Code per message, Codex per response in its
// token_usage_record entries, Gemini CLI per model message), ids and numbers only.
//
// Both are fail-closed. A transcript is read only when all three checks pass: it is the
// session's own file (the id it records is the session's), its working directory is the
// project's (the cwd canary: one mismatch abandons the file), and only turns stamped inside the
// session's time window (with Slack either side) are kept. Anything else is ErrNotIsolated
// with the reason, and the caller journals the session's metadata alone: "we don't know what
// happened" beats a confident summary of another session. What Read returns is bounded in
// bytes and redacted, so no worker ever sees a secret or an unbounded input; what ReadActivity
// returns holds no text.
package transcript
