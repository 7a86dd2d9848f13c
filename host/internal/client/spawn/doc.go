// Package spawn owns the client side of `memhost run <cli>`: starting an agent CLI on the
// user's machine with memhost's project brain and MCP server injected through the CLI's own
// channels, and leaving nothing behind. It runs beside the user's terminal, not in the daemon:
// it reaches the host over REST like any client.
//
// One Run:
//
//  1. resolves the project of the working directory (package project) and names the session
//     with a key of its own (its record's key, in the banner request, the MCP entry's
//     X-Memhost-Session header, the prompt hook and SessionKeyEnv);
//  2. gets a token bound to that project (Tokens: minted short-lived through the database the
//     configuration names, and revoked when the session ends; or the operator's own) while it
//     launches the CLI's provider plugin (memhost-provider-<cli>) under a plugin Supervisor;
//  3. reads the task the user's arguments carry with the task rules the plugin's binary
//     declared at an earlier run (provider.TaskRules, kept in Options.TaskRulesDir keyed by
//     the binary's path, size and modification time), else asks the started plugin
//     (provider.Tasker); gets the banner from the running host, led by the facts relevant to
//     that task, beside the plugin's start when the rules were kept; keeps the rules the
//     started plugin declares, and reads the task again when they are not those kept; and
//     asks the plugin to Prepare the spawn, with memhost's prompt hook (Options.PromptHook);
//  4. creates the plan's scratch files in a private scratch directory and runs the CLI
//     attached to the terminal (stdin, stdout, stderr, signals, exit code passed through),
//     marked (RunSessionEnv, RunBannerEnv) so the hooks `memhost connect` registered stand
//     down where Run does their work: one banner and one journal entry per session;
//  5. tells the provider the session ended, has it read the session's transcript once
//     (transcript.Fetch), closes the session's record with what it shows
//     (transcript.Turns.Activity: ids and numbers), appends a journal entry
//     (agent, duration, exit code, session id) through the host unless the session did nothing
//     (exit code 0 within Options.QuietUnder, 30 s by default), revokes the token and removes
//     the scratch directory.
//
// The hooks' side lives here too: MarkStart and EndSession close the record of a session a
// connected CLI's SessionEnd hook reports and journal it, under the same quiet rule, and
// HookPrompt is the user's words in a prompt hook's input.
//
// Memory never blocks work: when the host is unreachable, no token can be had, the provider
// is missing or fails, the CLI still starts, plain, after a one-line warning on stderr.
//
// Scratch directories live under one private root per user (ScratchRoot), each with a
// manifest naming the memhost and CLI processes that use it. The CLI dies with memhost run
// (a parent-death signal); a directory whose processes are gone, left by a memhost run that
// was killed with SIGKILL, is swept by the next Run.
package spawn
