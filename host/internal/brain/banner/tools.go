package banner

// CLI is the agent CLI that reads the banner.
type CLI string

// The CLIs the banner knows; CLIGeneric writes bare tool names.
const (
	CLIGeneric CLI = ""
	CLIClaude  CLI = "claude"
	CLICodex   CLI = "codex"
	CLIGemini  CLI = "gemini"
)

// serverName is the MCP server name `memhost connect` registers in every CLI; the CLIs build
// tool names from it.
const serverName = "memhost"

// cliStyle is how one CLI names MCP tools and what its own file memory is called.
type cliStyle struct {
	toolPrefix string
	fileMemory string
}

// cliTools: Claude Code and Codex show MCP tools as mcp__<server>__<tool>, Gemini CLI as
// mcp_<server>_<tool> (checked on claude-code 2.1, codex 0.169, gemini-cli 0.61; DESIGN.md).
var cliTools = map[CLI]cliStyle{
	CLIGeneric: {fileMemory: "CLAUDE.md, AGENTS.md or GEMINI.md notes"},
	CLIClaude:  {toolPrefix: "mcp__" + serverName + "__", fileMemory: "CLAUDE.md or auto memory"},
	CLICodex:   {toolPrefix: "mcp__" + serverName + "__", fileMemory: "AGENTS.md notes"},
	CLIGemini:  {toolPrefix: "mcp_" + serverName + "_", fileMemory: "GEMINI.md or save_memory"},
}

func (s cliStyle) tool(name string) string { return s.toolPrefix + name }
