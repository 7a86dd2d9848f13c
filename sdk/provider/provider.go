package provider

import (
	"context"
	"io/fs"
	"time"

	"github.com/memhost/memhost/sdk/plugin"
)

// ServerName is the name memhost's MCP server is registered under in every
// CLI, so that its tools are mcp__memhost__* (Claude Code, Codex) and
// mcp_memhost_* (Gemini CLI).
const ServerName = "memhost"

// Info describes a provider. See the ProviderDescribeResponse message in
// proto/memhost/v1/provider.proto for the full contract of each field.
type Info struct {
	// Name is the CLI served as the user names it (`memhost run claude`):
	// lower-case letters, digits and '-'. It is the agent in the journal.
	Name string
	// Version is the human-readable plugin release.
	Version string
	// Description is a one-line summary for operators.
	Description string
	// Executable is the command run when the user names none, looked up on
	// the spawn's PATH, e.g. "claude".
	Executable string
	// InstructionFiles are the CLI's instruction files in a project's root,
	// bare names such as "CLAUDE.md", read by `memhost import-cli`.
	InstructionFiles []string
	// MemoryFolders is where the CLI keeps its own file memory of a project,
	// read by `memhost import-cli`; nil when it keeps none.
	MemoryFolders *MemoryFolders
	// Task declares where the CLI's arguments carry the user's prompt, so
	// that memhost reads the task while the plugin starts; nil when the
	// provider reads it itself (Tasker) or the CLI takes none.
	Task *TaskRules
}

// MemoryFolders is a CLI's per-project memory folders in the layout Claude
// Code uses: <config dir>/projects/<the project's absolute path with every
// character but an ASCII letter or digit replaced by '-'>/<Subdir>/*.md.
type MemoryFolders struct {
	// ConfigDirEnv names the variable holding the CLI's configuration
	// folder, e.g. "CLAUDE_CONFIG_DIR".
	ConfigDirEnv string
	// DefaultConfigDir is that folder relative to HOME when the variable is
	// unset, e.g. ".claude".
	DefaultConfigDir string
	// Subdir is the folder of memory files in a project's folder, e.g. "memory".
	Subdir string
	// TruncateAt is the length past which the CLI cuts a project's folder
	// name and appends a suffix of its own (0: never); every folder starting
	// with the cut name is read.
	TruncateAt int
}

// MCPServer is memhost's MCP endpoint as the CLI must register it.
type MCPServer struct {
	// Name is always ServerName.
	Name string
	// URL is the streamable HTTP endpoint, e.g. http://127.0.0.1:7420/mcp.
	URL string
	// Token is a bearer token bound to the spawn's project. It is a secret:
	// never on the command line, only in a 0600 scratch file or the
	// environment.
	Token string
	// Headers are further HTTP headers the CLI must send with every request
	// (SessionHeader: the session's key, so memhost records its tool calls).
	// A CLI that cannot send headers leaves them out.
	Headers map[string]string
}

// SessionHeader is the header MCPServer.Headers names the session with.
const SessionHeader = "X-Memhost-Session"

// Spawn is one start of the CLI, as the user asked for it.
type Spawn struct {
	// CLI equals Info.Name.
	CLI string
	// Executable is the absolute path memhost will run.
	Executable string
	// Args are the user's arguments, as given.
	Args []string
	// Dir is the CLI's absolute working directory.
	Dir string
	// Env is the environment the CLI would get without memhost: read the
	// user's configuration locations (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME,
	// GEMINI_CLI_HOME, ...) here, not from os.Getenv.
	Env map[string]string
	// Banner is the project brain to inject, plain text; empty when memhost
	// could not produce one.
	Banner string
	// MCP is memhost's MCP server; nil when the host is unreachable.
	MCP *MCPServer
	// Project is the project key of the banner and the token.
	Project string
	// ScratchDir is an empty directory (0700) private to this spawn, where
	// Plan.Files are created; memhost removes it after the session.
	ScratchDir string
	// PromptHook is the shell command of memhost's prompt hook for this
	// session, for CLIs with a hook on each prompt the user submits (Claude
	// Code's UserPromptSubmit): its output, in the hook's JSON shape, adds the
	// facts relevant to the prompt. Empty when memhost gives none.
	PromptHook string
}

// File is one entry memhost creates in Spawn.ScratchDir before the CLI
// starts: a regular file, or a symbolic link when LinkTarget is set.
type File struct {
	// Path is slash-separated and relative to the scratch directory, without
	// "." or ".." elements; parents are created (0700).
	Path string
	// Mode holds the permission bits of a regular file (0600, 0644, ...). A
	// file holding the MCP token must not be readable by group or others.
	Mode fs.FileMode
	// Content of a regular file.
	Content []byte
	// LinkTarget, when set, makes the entry a symbolic link to this absolute
	// path (Mode and Content empty): how a scratch home mirrors the user's
	// files without copying or moving them.
	LinkTarget string
	// CreateTargetDir creates LinkTarget as an empty directory (0700, with
	// parents) when it does not exist, so that what the CLI writes there
	// lands in the user's own home and outlives the scratch directory.
	CreateTargetDir bool
}

// Plan says how to start the CLI.
type Plan struct {
	// Args is the complete argument list: Spawn.Args unchanged, in order and
	// adjacent, with the provider's own arguments around them.
	Args []string
	// SetEnv are variables set over Spawn.Env.
	SetEnv map[string]string
	// UnsetEnv are variables removed from Spawn.Env.
	UnsetEnv []string
	// Files are created in Spawn.ScratchDir before the CLI starts.
	Files []File
	// Cleanup are absolute paths outside the scratch directory that the
	// session will create and memhost removes after it. memhost refuses a
	// path that already exists: it never deletes what was there before.
	Cleanup []string
	// State is handed back to Finish unchanged (a session id the provider
	// chose, say).
	State []byte
	// DeliversBanner is true when the plan gives the CLI Spawn.Banner.
	// memhost then has the SessionStart hook `memhost connect` registered in
	// the CLI's own configuration stand down in this session, so the session
	// reads the banner once. Leave it false when the user's arguments took
	// the banner's channel: the hook then gives it.
	DeliversBanner bool
	// DeliversPromptHook is true when the plan registers Spawn.PromptHook.
	// memhost then has the prompt hook `memhost connect` registered in the
	// CLI's own configuration stand down in this session.
	DeliversPromptHook bool
}

// Ended tells a provider that a session is over.
type Ended struct {
	// Spawn is the spawn as it was prepared.
	Spawn Spawn
	// State is Plan.State.
	State []byte
	// ExitCode is the CLI's exit code, 128+N when signal N killed it, -1
	// when it could not be started.
	ExitCode int
	// StartedAt is when the CLI started; Duration how long it ran.
	StartedAt time.Time
	Duration  time.Duration
}

// Session is what a provider found out about an ended session; both fields
// may be empty.
type Session struct {
	// ID is the CLI's own session id, recorded in the journal.
	ID string
	// Transcript is the absolute path of the CLI's transcript.
	Transcript string
}

// Provider injects memhost into one agent CLI. Implementations must be safe
// for concurrent use. Every method returns promptly once its context is
// done, with an error wrapping ctx.Err() unless it has already finished.
type Provider interface {
	// Describe returns the provider's identity. It must not change during
	// the life of a process.
	Describe(ctx context.Context) (Info, error)
	// Prepare answers how to start the CLI for s. It reads what it needs
	// and writes nothing: memhost applies the plan. On an error memhost
	// starts the CLI without memhost, with a one-line warning: memory never
	// blocks work.
	Prepare(ctx context.Context, s Spawn) (Plan, error)
	// Finish is told that the session ended and returns its session id and
	// transcript when the provider can find them.
	Finish(ctx context.Context, e Ended) (Session, error)
	// Health returns nil when Prepare is expected to succeed, or an error
	// explaining why not.
	Health(ctx context.Context) error
}

// Tasker is implemented by a provider that knows where its CLI takes a
// prompt argument (`claude -p TASK`, `codex exec TASK`, `gemini -p TASK`) in a
// way TaskRules cannot declare. A provider that declares Info.Task need not
// implement it: the SDK answers the Task RPC from the rules, and calls no
// Tasker method then. It is a separate interface so that a provider written before it keeps
// compiling; memhost's client always has it, and answers ErrUnimplemented for
// a plugin without it.
type Tasker interface {
	// Task returns the prompt args carry, or "" when they carry none (an
	// interactive start, a subcommand, a prompt piped on stdin). It reads
	// args only.
	Task(ctx context.Context, args []string) (string, error)
}

// The errors memhost's Provider returns, for errors.Is. They are the
// kind-neutral errors of sdk/plugin, so a host checks them for any kind.
var (
	// ErrUnimplemented means the plugin does not implement the called RPC.
	ErrUnimplemented = plugin.ErrUnimplemented
	// ErrInvalidInput means the request broke a rule of the protocol or of
	// the provider. It is permanent. Implementations may return errors
	// wrapping it; they reach memhost as ErrInvalidInput too.
	ErrInvalidInput = plugin.ErrInvalidInput
	// ErrUnavailable means the plugin process could not be reached.
	ErrUnavailable = plugin.ErrUnavailable
	// ErrUnhealthy is returned by the client's Health when the plugin
	// reports itself not ready; the plugin's reason follows it.
	ErrUnhealthy = plugin.ErrUnhealthy
)
