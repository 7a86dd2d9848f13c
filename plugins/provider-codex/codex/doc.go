// Package codex is the provider for OpenAI's Codex CLI: how `memhost run
// codex` hands Codex the project brain and memhost's MCP server, and how it
// finds the session afterwards.
//
// Codex reads both from its home directory (CODEX_HOME, default ~/.codex),
// so the CLI runs with CODEX_HOME pointing at a scratch home that mirrors the
// user's: every entry of theirs is a link (auth.json, history, skills, the
// sqlite state, ...), except
//
//   - config.toml: a copy of theirs (model providers, profiles, MCP servers,
//     everything) with [mcp_servers.memhost] set to memhost's URL and the
//     project-bound token and the session's X-Memhost-Session header (memhost
//     records its tool calls) in http_headers. Not bearer_token_env_var: Codex
//     silently leaves such a server out of `codex exec` when the variable is
//     unset. The copy is 0600, it holds the token;
//   - AGENTS.md (or AGENTS.override.md when the user has one, since Codex
//     then reads it instead): a copy of theirs with the banner appended;
//   - sessions: a link to the user's own sessions directory, created there
//     when missing, so the rollout of the session outlives the scratch home.
//
// The user's files are read, never written or moved. Codex's management
// commands (codex login, codex mcp, ...) run unchanged against the user's
// own home. Finish finds the rollout the session wrote,
// sessions/YYYY/MM/DD/rollout-*.jsonl, by its session_meta: the newest one
// of the working directory since the session started. The task (Task) is the
// prompt of `codex exec TASK` or `codex TASK`.
//
// One reader of a rollout's session_meta (rollout.go) serves Finish and
// Transcript, which reads the session's rollout for memhost's record and
// summary: its session_meta must name the session and the project's working
// directory, and no turn_context may move it elsewhere; its response items
// are the turns and its token_usage_record entries their cost.
package codex
