// Package gemini is the provider for Google's Gemini CLI: how `memhost run
// gemini` hands Gemini CLI the project brain and memhost's MCP server, and
// how it finds the session afterwards.
//
// Gemini CLI reads both from ~/.gemini, and GEMINI_CLI_HOME relocates ~, so
// the CLI runs with GEMINI_CLI_HOME pointing at a scratch home whose .gemini
// mirrors the user's (their GEMINI_CLI_HOME/.gemini, else ~/.gemini): every
// entry of theirs is a link (auth files, extensions, commands, trusted
// folders, ...), except
//
//   - settings.json: a copy of theirs (comments allowed, as Gemini CLI
//     allows them) with mcpServers.memhost set to memhost's URL, type http,
//     the project-bound token in its Authorization header, the session's
//     X-Memhost-Session header (memhost records its tool calls) and "trust":
//     true, without which headless `gemini -p` offers none of the server's
//     tools. When the user restricts servers with mcp.allowed, memhost is
//     added to the list. memhost's prompt hook is added after the user's own
//     BeforeAgent hooks (it runs on each prompt before the model, and its
//     additionalContext joins the prompt). The copy is 0600, it holds the
//     token;
//   - the context file (GEMINI.md, or the first name in the user's
//     context.fileName): a copy of theirs with the banner appended; Gemini CLI
//     puts it in the system instruction;
//   - tmp and history: links to the user's own directories, created there
//     when missing, so the chat of the session outlives the scratch home.
//
// Folder trust: GEMINI_CLI_TRUST_WORKSPACE=true, since an untrusted folder
// disables every MCP server (and headless Gemini CLI refuses to start
// there). The user's files are read, never written or moved; Gemini CLI's
// management commands (gemini mcp, gemini extensions, ...) run unchanged
// against the user's own home. The session id is chosen here
// (--session-id=UUID) unless the user resumes one, and Finish finds the
// chat under tmp/*/chats. The task (Task) is the value of -p/--prompt or
// -i/--prompt-interactive, else the positional query's words.
//
// Transcript reads the session's chat for memhost's record and summary
// (transcript.go, the one place that knows the layout): its first line names
// sessionId and projectHash (sha256 of the working directory), both must be
// the session's; message records and {"$set": {"messages": [...]}} updates
// follow, a model message carrying its tool calls, their results and its
// token count.
package gemini
