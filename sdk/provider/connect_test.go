package provider_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/provider"
	"github.com/memhost/memhost/sdk/provider/providertest"
)

// connecting is a provider with file names to import and a connect plan of every kind.
type connecting struct{ toy }

func (connecting) Describe(context.Context) (provider.Info, error) {
	return provider.Info{
		Name: "toy", Version: "1", Executable: "toy", InstructionFiles: []string{"TOY.md"},
		MemoryFolders: &provider.MemoryFolders{ConfigDirEnv: "TOY_DIR", DefaultConfigDir: ".toy", Subdir: "memory", TruncateAt: 200},
	}, nil
}

func (connecting) Connect(_ context.Context, r provider.ConnectRequest) (provider.Connection, error) {
	home := r.Env["HOME"]
	return provider.Connection{RegisteredIn: home + "/.toy.json", Steps: []provider.ConnectStep{
		{File: home + "/.toy.json", Run: &provider.Command{Args: []string{"mcp", "add", r.Memhost}, UndoArgs: []string{"mcp", "remove"}}},
		{File: home + "/.toy/settings.json", JSONAppend: &provider.JSONAppend{Path: []string{"hooks", "start"}, Value: `{"command":"` + r.Hook + `"}`}},
		{File: home + "/.toy/config", TextAppend: &provider.TextAppend{Text: "# memhost\n[memhost]\n", UntilPrefix: "["}},
	}}, nil
}

// TestDescribeAndConnectCrossTheWire: the import file names and every kind of connect step
// come through the plugin protocol unchanged.
func TestDescribeAndConnectCrossTheWire(t *testing.T) {
	t.Parallel()
	p := providertest.Serve(t, connecting{})
	info, err := p.Describe(t.Context())
	require.NoError(t, err)
	want, _ := connecting{}.Describe(t.Context())
	require.Equal(t, want, info)

	r := provider.ConnectRequest{Env: map[string]string{"HOME": "/home/u"}, Memhost: "/opt/memhost", Config: "/etc/m.toml", Hook: "/opt/memhost hook"}
	got, err := p.(provider.Connector).Connect(t.Context(), r)
	require.NoError(t, err)
	plan, _ := connecting{}.Connect(t.Context(), r)
	require.Equal(t, plan, got)
}

func TestConnectionValidate(t *testing.T) {
	t.Parallel()
	ok, _ := connecting{}.Connect(context.Background(), provider.ConnectRequest{Env: map[string]string{"HOME": "/home/u"}, Memhost: "/opt/memhost"})
	require.NoError(t, ok.Validate())
	for _, tc := range []struct {
		step provider.ConnectStep
		want string
	}{
		{provider.ConnectStep{File: "rel/file", TextAppend: &provider.TextAppend{Text: "x\n"}}, `file "rel/file": must be a clean absolute path`},
		{provider.ConnectStep{File: "/f"}, "0 changes given; exactly one of run, json append and text append"},
		{provider.ConnectStep{File: "/f", Run: &provider.Command{Args: []string{"add"}}}, "run: args and undo args must both be given"},
		{provider.ConnectStep{File: "/f", JSONAppend: &provider.JSONAppend{Path: []string{"a"}, Value: "{"}}, "json append: needs a path and a value in JSON"},
		{provider.ConnectStep{File: "/f", TextAppend: &provider.TextAppend{Text: "\nx\n"}}, "text append: must start with a non-blank line and end with a newline"},
	} {
		require.EqualError(t, provider.Connection{Steps: []provider.ConnectStep{tc.step}}.Validate(), "steps[0]: "+tc.want)
	}
	require.EqualError(t, provider.Connection{}.Validate(), "steps: none; a connection changes at least one file")
	require.EqualError(t, provider.ConnectRequest{Memhost: "memhost"}.Validate(), `memhost "memhost": must be a clean absolute path`)
}

func TestInfoValidateImportNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		info provider.Info
		want string
	}{
		{provider.Info{InstructionFiles: []string{"docs/CLAUDE.md"}}, `instruction file "docs/CLAUDE.md": must be a bare file name`},
		{provider.Info{MemoryFolders: &provider.MemoryFolders{ConfigDirEnv: "A=B", DefaultConfigDir: ".a", Subdir: "m"}}, `memory folders config dir env name "A=B"`},
		{provider.Info{MemoryFolders: &provider.MemoryFolders{ConfigDirEnv: "A", DefaultConfigDir: "../a", Subdir: "m"}}, `default config dir "../a": must be a relative path inside HOME`},
		{provider.Info{MemoryFolders: &provider.MemoryFolders{ConfigDirEnv: "A", DefaultConfigDir: ".a", Subdir: "m/n"}}, `subdir "m/n": must be a bare folder name`},
	} {
		tc.info.Name, tc.info.Executable = "claude", "claude"
		require.ErrorContains(t, tc.info.Validate(), tc.want)
	}
}

// TestSessionEndHookIsTheStartHooksSibling: memhost's SessionEnd hook command is its
// SessionStart hook's with session-end, quoting and config kept; a hook that is not memhost's
// gives none.
func TestSessionEndHookIsTheStartHooksSibling(t *testing.T) {
	t.Parallel()
	r := provider.ConnectRequest{Hook: `'/home/o'\''b/memhost' --config '/srv/a b.toml' hook session-start --cli claude`}
	require.Equal(t, `'/home/o'\''b/memhost' --config '/srv/a b.toml' hook session-end --cli claude`, r.SessionEndHook())
	require.Empty(t, provider.ConnectRequest{Hook: "/opt/memhost hook"}.SessionEndHook())
	require.Empty(t, provider.ConnectRequest{}.SessionEndHook())
}
