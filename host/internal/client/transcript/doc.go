// Package transcript owns what memhost does with an agent CLI's session transcript for the
// session's record and summary (issue 18; seed 001's isolation guarantees), and nothing of
// any CLI's layout: the CLI's provider plugin reads its own layout (the Transcript RPC of
// sdk/provider) and answers neutral turns.
//
// Fetch asks the plugin for the session's turns and keeps those stamped inside the session's
// time window (provider.TranscriptSlack either side): the plugin's SDK drops the others too,
// the window here is the defence in depth against a plugin that does not. From the turns it
// makes two things: the excerpt a worker summarises (Turns.Excerpt: redacted, each turn and
// the whole bounded in bytes, the latest turns kept) and the session's activity with memhost
// for its record (Turns.Activity: the ids its memhost tool results showed, those its answers
// cited, the facts it stored and what finding each cost, from the usage the CLI records), ids
// and numbers only.
//
// Both are fail-closed. A transcript is used only when the plugin proved it the session's
// own (the id it records) in the project's directory (the cwd canary), and only its turns
// inside the window. Anything else is ErrNotIsolated with the reason: the plugin's, or that
// the session lacks an id, directory or window, that no provider plugin runs, that the
// provider reads no transcripts (a plugin built before the RPC, or a third party's without
// it) or that it failed. The caller then journals the session's metadata alone: "we don't
// know what happened" beats a confident summary of another session.
package transcript
