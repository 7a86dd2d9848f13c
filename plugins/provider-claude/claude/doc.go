// Package claude is the provider for Claude Code: how `memhost run claude`
// hands Claude Code the project brain and memhost's MCP server, and how it
// finds the session afterwards. Every channel is a command-line flag, so
// nothing of the user's (~/.claude, CLAUDE_CONFIG_DIR, ~/.claude.json,
// .mcp.json) is copied, relocated or changed, and all of it stays in force:
//
//   - the banner: --append-system-prompt-file=FILE (the end of the system
//     prompt), a 0600 scratch file: never the text itself on the command
//     line, which other local users read in /proc/PID/cmdline and which
//     fails exec past 128 KiB. When the user passed their own
//     --append-system-prompt or --append-system-prompt-file, a SessionStart
//     hook in --settings=FILE (0600 scratch files too) delivers it instead;
//     when they passed --settings too, the banner is left out rather than
//     override either;
//   - memhost's MCP server: --mcp-config=FILE, a 0600 scratch file naming
//     the server memhost with the project-bound token in its Authorization
//     header (the token never reaches the command line) and the session's
//     X-Memhost-Session header, so memhost records the session's tool calls
//     in its record. --strict-mcp-config is not added: it would hide the
//     user's own MCP servers, and servers given by flag need no approval
//     anyway;
//   - headless runs (-p/--print): --allowedTools=mcp__memhost, because in
//     -p mode Claude Code refuses a tool nobody allowed; interactive sessions
//     ask the user as for any other server;
//   - the session: --session-id=UUID chosen here, unless the user resumes or
//     names a session, so Finish finds the transcript at
//     <CLAUDE_CONFIG_DIR or ~/.claude>/projects/*/UUID.jsonl (globbed: long
//     project paths are truncated and hashed by Claude Code);
//   - the prompt hook: memhost's `memhost hook prompt` as a UserPromptSubmit
//     hook in the same --settings file, which adds the facts relevant to each
//     prompt (Plan.DeliversPromptHook, so a connected hook stands down); left
//     out when the user passed their own --settings;
//   - the task (Task): the first positional argument, the prompt of `claude
//     -p TASK` and `claude TASK`, read as Claude Code's option parser reads
//     its options.
//
// Options are passed in their --flag=value form: several of Claude Code's
// options take any number of values and would swallow a prompt that
// follows them as one more value. Subcommands (claude mcp, claude doctor,
// ...) run unchanged.
//
// Transcript reads the session's transcript for memhost's record and summary
// (transcript.go, the one place that knows Claude Code's layout):
// <config dir>/projects/<encoded cwd>/<session id>.jsonl, one entry per line,
// each with sessionId, cwd and timestamp. It is the session's only when the
// file is named for it, no entry names another session and the first cwd
// (the canary) is the project's; otherwise it answers why, and no turns.
package claude
