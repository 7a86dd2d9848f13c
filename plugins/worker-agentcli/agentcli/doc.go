// Package agentcli is the worker that every install has: it answers the
// host's LLM text tasks by running an agent CLI the user already has and is
// logged in to, headless, once per task:
//
//	claude -p --output-format=json ...   (Claude Code)
//	gemini -o json --skip-trust -p ...   (Gemini CLI)
//	codex exec --json ... -              (Codex)
//
// # Configuration
//
// The plugin reads only these environment variables, which the host sets
// from the worker's [workers.NAME] configuration:
//
//   - MEMHOST_WORKER_CLI (required): claude, gemini or codex;
//   - MEMHOST_WORKER_CLI_PATH: the CLI's absolute path; default: the CLI's
//     name looked up on PATH;
//   - MEMHOST_WORKER_NAME: the worker's name in Describe (default agentcli);
//   - MEMHOST_WORKER_MODEL: passed to the CLI's model flag (default: the
//     CLI's own choice);
//   - MEMHOST_WORKER_TIMEOUT: a Go duration bounding one task (default
//     120s); a task's sooner deadline wins;
//   - MEMHOST_WORKER_MAX_INPUT_BYTES: the largest task, instructions plus
//     input (default 256 KiB).
//
// A missing or bad variable is named by Describe and Health, and Run
// refuses every task with ErrInvalidInput. The CLI's credentials are the
// user's, found where the CLI finds them (HOME, CLAUDE_CONFIG_DIR,
// GEMINI_CLI_HOME, CODEX_HOME, its API key variables), so the plugin's
// environment must carry them: memhost passes each CLI's login variables,
// and those a worker's env list names (a Codex model provider's env_key).
//
// # One run
//
// Each task gets a 0700 scratch folder under TMPDIR, removed afterwards;
// the CLI's working directory is an empty folder in it, never a user's
// project. The host's instructions go to the CLI's system or developer
// channel, the task's schema to the CLI's own schema option where it has
// one (Claude Code's --json-schema, Codex's --output-schema; for Gemini CLI
// it is in the instructions); the untrusted input is written to stdin
// between two random fences, and stdin is then closed, so no prompt can
// wait for an answer. The CLI's environment is the plugin's minus every
// MEMHOST_* variable (no token, no configuration) and go-plugin's, plus
// MEMHOST_WORKER=1, NO_COLOR=1 and TERM=dumb.
//
// No tools, no MCP servers, no hooks, nothing written to the user's
// history (see claude, gemini and codex for each CLI's flags and scratch
// home): a user who ran `memhost connect` has memhost's SessionStart hook
// and MCP server in their global settings, and a worker's run must neither
// get the banner nor reach the project's memory.
//
// # Processes
//
// The CLI runs in a process group of its own. On the task's deadline, a
// cancelled call, or the plugin's shutdown (Close, or SIGTERM/SIGINT/SIGHUP
// to the plugin) the whole group is killed with SIGKILL, and once the CLI
// exits whatever it left in the group is killed too. On Linux the CLI also
// gets SIGKILL if the plugin dies. A descendant that leaves the group
// (setsid) is beyond this, as is one left running when the plugin itself is
// killed with SIGKILL.
//
// # Errors
//
// Output that is not the CLI's JSON alone (prose around it, terminal escape
// codes, nothing, more than 8 MiB) and an answer that does not satisfy the
// schema are ErrBadAnswer; an error the CLI reports in its JSON (is_error,
// an error object, turn.failed) is ErrRateLimited for rate limits and
// quotas, ErrRefused for a refusal, else ErrUnavailable, quoting the CLI's
// message on one bounded line; a CLI that is not installed or exits non-zero
// without its JSON is ErrUnavailable; the deadline is ErrTimeout; a prompt
// that cannot fit the token budget is ErrOverBudget before any CLI starts,
// and so is an answer whose reported usage went over it.
package agentcli
