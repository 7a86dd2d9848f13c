package provider_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/provider"
)

func TestInfoValidate(t *testing.T) {
	t.Parallel()
	ok := provider.Info{Name: "claude", Version: "1", Executable: "claude"}
	require.NoError(t, ok.Validate())
	for _, tc := range []struct {
		mutate func(*provider.Info)
		want   string
	}{
		{func(i *provider.Info) { i.Name = "" }, "name is empty"},
		{func(i *provider.Info) { i.Name = strings.Repeat("a", 65) }, "name is 65 bytes, exceeds 64"},
		{func(i *provider.Info) { i.Name = "-claude" }, `name "-claude": must be lower-case letters, digits and '-', starting with a letter or digit`},
		{func(i *provider.Info) { i.Name = "Claude" }, `name "Claude": must be lower-case letters`},
		{func(i *provider.Info) { i.Executable = "" }, "executable is empty"},
		{func(i *provider.Info) { i.Executable = "/usr/bin/claude" }, `executable "/usr/bin/claude": must be a bare command name, not a path`},
	} {
		bad := ok
		tc.mutate(&bad)
		require.ErrorContains(t, bad.Validate(), tc.want)
	}
}

func validSpawn() provider.Spawn {
	return provider.Spawn{
		CLI: "claude", Executable: "/usr/bin/claude", Args: []string{"-p", "hi"}, Dir: "/work/p",
		Env: map[string]string{"HOME": "/home/u"}, ScratchDir: "/tmp/memhost-run-0/abc", Banner: "# Project brain\nwe use pnpm\n",
		MCP: &provider.MCPServer{Name: "memhost", URL: "http://127.0.0.1:7420/mcp", Token: "mh_fake-token-for-tests"},
	}
}

func TestSpawnValidate(t *testing.T) {
	t.Parallel()
	require.NoError(t, validSpawn().Validate())
	for _, tc := range []struct {
		mutate func(*provider.Spawn)
		want   string
	}{
		{func(s *provider.Spawn) { s.CLI = "" }, "spawn cli is empty"},
		{func(s *provider.Spawn) { s.Executable = "claude" }, `spawn executable "claude": must be an absolute path`},
		{func(s *provider.Spawn) { s.Dir = "." }, `spawn dir ".": must be an absolute path`},
		{func(s *provider.Spawn) { s.ScratchDir = "" }, `spawn scratch dir "": must be an absolute path`},
		{func(s *provider.Spawn) { s.Env = map[string]string{"A=B": "c"} }, `spawn env name "A=B": must be non-empty without '=' or NUL`},
		{func(s *provider.Spawn) { s.MCP.URL = "" }, "spawn mcp: name and url must both be set"},
	} {
		bad := validSpawn()
		bad.MCP = &provider.MCPServer{Name: "memhost", URL: "http://x/mcp", Token: "t"}
		tc.mutate(&bad)
		require.EqualError(t, bad.Validate(), tc.want)
	}
}

func TestPlanValidate(t *testing.T) {
	t.Parallel()
	s := validSpawn()
	token := s.MCP.Token
	ok := provider.Plan{
		Args:   []string{"--mcp-config", "/tmp/memhost-run-0/abc/mcp.json", "-p", "hi"},
		SetEnv: map[string]string{"X": "1"},
		Files: []provider.File{
			{Path: "mcp.json", Mode: 0o600, Content: []byte(token)},
			{Path: "home/.codex/auth.json", LinkTarget: "/home/u/.codex/auth.json"},
			{Path: "home/.codex/sessions", LinkTarget: "/home/u/.codex/sessions", CreateTargetDir: true},
		},
		Cleanup: []string{"/home/u/.claude/lock"},
	}
	require.NoError(t, ok.Validate(s))
	for _, tc := range []struct {
		mutate func(*provider.Plan)
		want   string
	}{
		{func(p *provider.Plan) { p.Args = []string{"-p"} }, "args must contain the user's 2 arguments unchanged, in order and adjacent"},
		{func(p *provider.Plan) { p.Args = []string{"-p", "x", "hi"} }, "args must contain the user's 2 arguments"},
		{func(p *provider.Plan) { p.Args = append(p.Args, "Bearer "+token) }, "args[4] contains the MCP token"},
		{func(p *provider.Plan) { p.Args = append(p.Args, "a\x00b") }, "args[4] contains a NUL byte"},
		{func(p *provider.Plan) { p.Args = append(p.Args, "--append-system-prompt="+s.Banner) }, "args[4] contains the banner"},
		{func(p *provider.Plan) { p.Args = append(p.Args, strings.Repeat("x", 16<<10+1)) }, "args[4] is 16385 bytes, exceeds 16384"},
		{func(p *provider.Plan) { p.SetEnv = map[string]string{"BANNER": strings.Repeat("x", 16<<10)} }, "set env BANNER is 16391 bytes, exceeds 16384"},
		{func(p *provider.Plan) { p.SetEnv = map[string]string{"": "x"} }, `set env name "": must be non-empty`},
		{func(p *provider.Plan) { p.UnsetEnv = []string{"X"} }, "unset env X: also in set env"},
		{func(p *provider.Plan) { p.Files[0].Path = "../mcp.json" }, `files[0] path "../mcp.json": must be a slash-separated relative path inside the scratch directory`},
		{func(p *provider.Plan) { p.Files[0].Path = "a//b" }, `files[0] path "a//b"`},
		{func(p *provider.Plan) { p.Files[0].Path = "." }, `files[0] path "."`},
		{func(p *provider.Plan) { p.Files[1].Path = "mcp.json" }, `files[1] path "mcp.json": listed twice`},
		{func(p *provider.Plan) { p.Files[0].Mode = 0o644 }, "files[0] mcp.json: holds the MCP token with mode 0644; it must not be readable by group or others (0600)"},
		{func(p *provider.Plan) { p.Files[0].Mode = 0o4700 }, "files[0] mcp.json: mode 04700 has bits beyond 0777"},
		{func(p *provider.Plan) { p.Files[0].CreateTargetDir = true }, "files[0] mcp.json: create target dir needs a link target"},
		{func(p *provider.Plan) { p.Files[1].LinkTarget = "relative" }, `files[1] home/.codex/auth.json: link target "relative" must be a clean absolute path`},
		{func(p *provider.Plan) { p.Files[1].Mode = 0o600 }, "files[1] home/.codex/auth.json: a link has no mode or content"},
		{func(p *provider.Plan) {
			p.Files = append(p.Files, provider.File{Path: "home/.codex/sessions/x", Mode: 0o600})
		}, `files: "home/.codex/sessions/x" is inside entry "home/.codex/sessions"; entries must not nest`},
		{func(p *provider.Plan) { p.Cleanup = []string{"relative"} }, `cleanup[0] "relative": must be a clean absolute path other than /`},
		{func(p *provider.Plan) { p.Cleanup = []string{"/"} }, `cleanup[0] "/": must be a clean absolute path other than /`},
		{func(p *provider.Plan) { p.Cleanup = []string{"/tmp/memhost-run-0"} }, `cleanup[0] "/tmp/memhost-run-0": must not be the scratch directory or hold it`},
	} {
		bad := ok
		bad.Args = append([]string(nil), ok.Args...)
		bad.Files = append([]provider.File(nil), ok.Files...)
		tc.mutate(&bad)
		require.ErrorContains(t, bad.Validate(s), tc.want)
	}

	// Without memhost reachable there is no token to keep private.
	s.MCP = nil
	require.NoError(t, provider.Plan{Args: s.Args}.Validate(s))

	// The user's own arguments are theirs, however long.
	long := validSpawn()
	long.Args = []string{"-p", strings.Repeat("y", 200<<10)}
	require.NoError(t, provider.Plan{Args: append([]string{"--x"}, long.Args...)}.Validate(long))
}

func TestSessionValidate(t *testing.T) {
	t.Parallel()
	require.NoError(t, provider.Session{}.Validate())
	require.NoError(t, provider.Session{ID: "019a-ff", Transcript: "/home/u/.claude/projects/x/019a-ff.jsonl"}.Validate())
	require.EqualError(t, provider.Session{ID: strings.Repeat("a", 257)}.Validate(), "session id is 257 bytes, exceeds 256")
	require.EqualError(t, provider.Session{ID: "a\tb"}.Validate(), "session id must be one line of valid UTF-8")
	require.EqualError(t, provider.Session{Transcript: "x.jsonl"}.Validate(), `transcript "x.jsonl": must be a clean absolute path`)
}
