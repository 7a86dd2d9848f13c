package connect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testlog"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/provider"
)

// fakeCLI stands for claude and gemini: it records each call's arguments (one line per call)
// in $FAKE_OUT/calls and, for `mcp add` and `mcp remove`, writes $FAKE_ADD or $FAKE_REMOVE to
// $FAKE_FILE, as the real CLI rewrites its configuration file. It exits with $FAKE_EXIT.
const fakeCLI = `#!/bin/sh
printf '%s\n' "$*" >> "$FAKE_OUT/calls"
case "$1 $2" in
  "mcp add") [ -z "$FAKE_EXIT" ] && printf '%s' "$FAKE_ADD" > "$FAKE_FILE" ;;
  "mcp remove") printf '%s' "$FAKE_REMOVE" > "$FAKE_FILE" ;;
esac
[ -n "$FAKE_EXIT" ] && echo "error: config is locked" >&2
exit "${FAKE_EXIT:-0}"
`

type bundle struct {
	home, out string
	log       *testlog.Buffer
	opts      Options

	mu      sync.Mutex
	revoked []string // token ids Revoke was given
}

func (b *bundle) revokedIDs() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.revoked
}

// setup returns options for cli in a fresh home with the fake CLIs on PATH.
func setup(t *testing.T, cli string) *bundle {
	t.Helper()
	root := t.TempDir()
	b := &bundle{home: filepath.Join(root, "home"), out: filepath.Join(root, "out"), log: &testlog.Buffer{}}
	bin := filepath.Join(root, "bin")
	for _, d := range []string{b.home, b.out, bin} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	for _, name := range []string{"claude", "gemini"} {
		testplugins.WriteScript(t, filepath.Join(bin, name), fakeCLI)
	}
	b.opts = Options{
		CLI:      cli,
		Provider: planners[cli],
		Env:      map[string]string{"HOME": b.home, "PATH": bin + ":/usr/bin:/bin", "FAKE_OUT": b.out},
		Hook:     HookCommand("/opt/memhost/bin/memhost", "/srv/my memhost/memhost.toml", cli),
		Memhost:  "/opt/memhost/bin/memhost",
		Config:   "/srv/my memhost/memhost.toml",
		StateDir: filepath.Join(b.home, ".config", "memhost", "connect"),
		Revoke: func(_ context.Context, id string) error {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.revoked = append(b.revoked, id)
			return nil
		},
		Yes: true,
		In:  strings.NewReader(""),
		Out: b.log,
	}
	return b
}

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func (b *bundle) calls(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(b.out, "calls"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// claudeSettings is a user's Claude Code settings.json, as Claude Code writes it.
const claudeSettings = `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(ls:*)"
    ]
  }
}
`

// TestConnectClaudeAsksAppliesAndUndoesByteForByte: connect shows the command and the diff,
// changes nothing without a yes, registers `memhost mcp` as a stdio server through `claude
// mcp add` at user scope (no token anywhere: the server gets one for the session's project)
// and adds the hook keeping the user's settings in order; a second connect changes nothing;
// undo restores both files byte for byte.
func TestConnectClaudeAsksAppliesAndUndoesByteForByte(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude")
	userFile, settings := filepath.Join(b.home, ".claude.json"), filepath.Join(b.home, ".claude", "settings.json")
	write(t, userFile, `{"numStartups": 3}`)
	write(t, settings, claudeSettings)
	b.opts.Env["FAKE_FILE"] = userFile
	b.opts.Env["FAKE_ADD"] = `{"numStartups": 3, "mcpServers": {"memhost": {"type": "stdio", "command": "/opt/memhost/bin/memhost"}}}`

	b.opts.Yes, b.opts.In = false, strings.NewReader("n\n")
	require.ErrorIs(t, Connect(t.Context(), b.opts), ErrNotConfirmed)
	shown := b.log.String()
	require.Contains(t, shown, "run: claude mcp add --scope user memhost -e 'MEMHOST_CONFIG=/srv/my memhost/memhost.toml' -- /opt/memhost/bin/memhost mcp")
	require.Contains(t, shown, "+  \"hooks\": {")
	require.Contains(t, shown, `+            "command": "/opt/memhost/bin/memhost --config '/srv/my memhost/memhost.toml' hook session-start --cli claude",`)
	require.Empty(t, b.calls(t), "nothing ran")
	require.Equal(t, claudeSettings, read(t, settings))
	require.NoDirExists(t, b.opts.StateDir)

	b.opts.In = strings.NewReader("y\n")
	require.NoError(t, Connect(t.Context(), b.opts))
	require.Equal(t, []string{"mcp add --scope user memhost -e MEMHOST_CONFIG=/srv/my memhost/memhost.toml -- /opt/memhost/bin/memhost mcp"}, b.calls(t))
	require.Equal(t, `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(ls:*)"
    ]
  },
  "hooks": {
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/memhost/bin/memhost --config '/srv/my memhost/memhost.toml' hook session-start --cli claude",
            "timeout": 10
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/memhost/bin/memhost --config '/srv/my memhost/memhost.toml' hook session-end --cli claude",
            "timeout": 15
          }
        ]
      }
    ],
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/memhost/bin/memhost --config '/srv/my memhost/memhost.toml' hook prompt --cli claude",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
`, read(t, settings))

	b.opts.Yes = true
	require.NoError(t, Connect(t.Context(), b.opts))
	require.Contains(t, b.log.String(), "claude is connected already")
	require.Len(t, b.calls(t), 1, "connecting twice changes nothing")

	require.NoError(t, Undo(t.Context(), b.opts))
	require.Equal(t, `{"numStartups": 3}`, read(t, userFile))
	require.Equal(t, claudeSettings, read(t, settings))
	require.Len(t, b.calls(t), 1, "a file as connect left it is restored, not edited")
	require.Empty(t, b.revokedIDs(), "this connection registered no token")
	require.NoDirExists(t, filepath.Join(b.opts.StateDir, "claude"))

	require.NoError(t, Undo(t.Context(), b.opts))
	require.Contains(t, b.log.String(), "claude is not connected by memhost connect; nothing to undo.")
}

// TestUndoKeepsWhatChangedSince: Claude Code rewrote ~/.claude.json after connect and the user
// added a hook of their own: undo takes memhost's server out through `claude mcp remove` and
// its hook out of settings.json, keeps the rest, and keeps the backups.
func TestUndoKeepsWhatChangedSince(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude")
	userFile, settings := filepath.Join(b.home, ".claude.json"), filepath.Join(b.home, ".claude", "settings.json")
	write(t, userFile, `{"numStartups": 3}`)
	write(t, settings, claudeSettings)
	b.opts.Env["FAKE_FILE"] = userFile
	b.opts.Env["FAKE_ADD"] = `{"numStartups": 3, "mcpServers": {"memhost": {"type": "http"}}}`
	b.opts.Env["FAKE_REMOVE"] = `{"numStartups": 4, "mcpServers": {}}`
	require.NoError(t, Connect(t.Context(), b.opts))

	write(t, userFile, `{"numStartups": 4, "mcpServers": {"memhost": {"type": "http"}}}`)
	doc, err := parseDocument([]byte(read(t, settings)))
	require.NoError(t, err)
	hooks, _ := doc.vals["hooks"].(*object)
	mine := newObject()
	mine.set("hooks", []any{func() *object { o := newObject(); o.set("type", "command"); o.set("command", "echo mine"); return o }()})
	hooks.set("SessionStart", append(hooks.vals["SessionStart"].([]any), mine))
	edited, err := doc.encode()
	require.NoError(t, err)
	write(t, settings, string(edited))

	require.NoError(t, Undo(t.Context(), b.opts))
	require.Equal(t, "mcp remove --scope user memhost", b.calls(t)[1])
	require.Equal(t, `{"numStartups": 4, "mcpServers": {}}`, read(t, userFile))
	after := read(t, settings)
	require.Contains(t, after, "echo mine")
	require.NotContains(t, after, "hook session-start")
	require.NotContains(t, after, "hook session-end", "undo takes the SessionEnd hook out too")
	require.Contains(t, b.log.String(), "the files as they were before connect are kept in "+filepath.Join(b.opts.StateDir, "claude"))
	require.FileExists(t, filepath.Join(b.opts.StateDir, "claude", "0-.claude.json"))
	require.NoFileExists(t, filepath.Join(b.opts.StateDir, "claude", stateFile))
}

func TestConnectGeminiTrustsTheServerAndHooksTheBanner(t *testing.T) {
	t.Parallel()
	b := setup(t, "gemini")
	b.opts.Env["GEMINI_CLI_HOME"] = filepath.Join(b.home, "g")
	settings := filepath.Join(b.home, "g", ".gemini", "settings.json")
	before := "{\n  // my key\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}\n}\n"
	write(t, settings, before)
	b.opts.Env["FAKE_FILE"] = settings
	b.opts.Env["FAKE_ADD"] = `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "mcpServers": {"memhost": {"httpUrl": "x", "trust": true}}}`

	require.NoError(t, Connect(t.Context(), b.opts))
	require.Equal(t, []string{"mcp add memhost /opt/memhost/bin/memhost mcp --scope user --trust -e MEMHOST_CONFIG=/srv/my memhost/memhost.toml"}, b.calls(t))
	after := read(t, settings)
	require.Contains(t, after, `"trust": true`, "the CLI's registration is kept")
	require.Contains(t, after, `"timeout": 10000`)
	require.Contains(t, after, "hook session-start --cli gemini")

	require.NoError(t, Undo(t.Context(), b.opts))
	require.Equal(t, before, read(t, settings), "byte for byte, comment included")
}

const codexConfig = `# my setup
model = "gpt-9"

[mcp_servers.github]
command = "gh-mcp"
`

func TestConnectCodexAppendsTheServerAndUndoesIt(t *testing.T) {
	t.Parallel()
	b := setup(t, "codex")
	config := filepath.Join(b.home, ".codex", "config.toml")
	write(t, config, codexConfig)
	require.NoError(t, os.Chmod(config, 0o640))

	require.NoError(t, Connect(t.Context(), b.opts))
	require.Empty(t, b.calls(t), "codex is configured by editing config.toml")
	after := read(t, config)
	require.True(t, strings.HasPrefix(after, codexConfig), "the user's file is kept as it is, memhost's table appended")
	var doc struct {
		MCPServers map[string]map[string]any `toml:"mcp_servers"`
	}
	require.NoError(t, toml.Unmarshal([]byte(after), &doc))
	require.Equal(t, map[string]any{"command": "/opt/memhost/bin/memhost", "args": []any{"mcp"}, "env": map[string]any{"MEMHOST_CONFIG": "/srv/my memhost/memhost.toml"}},
		doc.MCPServers["memhost"], "a stdio server: no URL, no token")
	fi, err := os.Stat(config)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "the file keeps its mode")

	require.NoError(t, Undo(t.Context(), b.opts))
	require.Equal(t, codexConfig, read(t, config))

	// Edited by the user after connect: only memhost's table goes.
	require.NoError(t, Connect(t.Context(), b.opts))
	write(t, config, read(t, config)+"\n[profiles.work]\nmodel = \"o9\"\n")
	require.NoError(t, Undo(t.Context(), b.opts))
	require.Equal(t, codexConfig+"[profiles.work]\nmodel = \"o9\"\n", read(t, config))
}

func TestConnectRefusesAServerRegisteredOutsideIt(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude")
	userFile := filepath.Join(b.home, ".claude.json")
	write(t, userFile, `{"mcpServers": {"memhost": {"type": "http", "url": "http://elsewhere/mcp"}}}`)
	err := Connect(t.Context(), b.opts)
	require.EqualError(t, err, "claude already has an MCP server named memhost in "+userFile+", registered outside memhost connect; remove it first")
	require.Empty(t, b.calls(t))
}

// TestAFailedConnectChangesNothing: the CLI's command fails: every file is as before, no
// record remains, and the error carries the CLI's words.
func TestAFailedConnectChangesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude")
	settings := filepath.Join(b.home, ".claude", "settings.json")
	write(t, settings, claudeSettings)
	b.opts.Env["FAKE_EXIT"] = "1"
	b.opts.Env["FAKE_FILE"] = filepath.Join(b.home, ".claude.json")
	err := Connect(t.Context(), b.opts)
	require.ErrorContains(t, err, "claude mcp add --scope user")
	require.ErrorContains(t, err, "error: config is locked")
	require.Equal(t, claudeSettings, read(t, settings))
	require.NoFileExists(t, filepath.Join(b.home, ".claude.json"))
	require.NoDirExists(t, filepath.Join(b.opts.StateDir, "claude"))
}

// TestUndoRemovesWhatConnectCreated: for a user who never ran the CLI, connect creates its
// folder and files; undo removes them again.
func TestUndoRemovesWhatConnectCreated(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude")
	userFile := filepath.Join(b.home, ".claude.json")
	b.opts.Env["FAKE_FILE"] = userFile
	b.opts.Env["FAKE_ADD"] = `{"mcpServers": {"memhost": {}}}`
	require.NoError(t, Connect(t.Context(), b.opts))
	require.FileExists(t, filepath.Join(b.home, ".claude", "settings.json"))
	require.NoError(t, Undo(t.Context(), b.opts))
	require.NoFileExists(t, userFile)
	require.NoDirExists(t, filepath.Join(b.home, ".claude"))
}

func TestHookCommandIsQuotedForTheShell(t *testing.T) {
	t.Parallel()
	require.Equal(t, "/usr/local/bin/memhost hook session-start --cli claude", HookCommand("/usr/local/bin/memhost", "", "claude"))
	require.Equal(t, `'/home/o'\''brien/bin/memhost' --config '/srv/a b.toml' hook session-start --cli gemini`,
		HookCommand("/home/o'brien/bin/memhost", "/srv/a b.toml", "gemini"))
}

// TestSettingsRoundTripUnchanged: a settings file as the CLIs write it parses and encodes to
// the same bytes, so an edit's diff shows only what memhost adds.
func TestSettingsRoundTripUnchanged(t *testing.T) {
	t.Parallel()
	for _, in := range []string{claudeSettings, "{}\n", "{\n  \"n\": 1.50,\n  \"s\": \"<&> \\u00e9\\n\",\n  \"a\": [],\n  \"z\": null,\n  \"t\": true\n}\n"} {
		doc, err := parseDocument([]byte(in))
		require.NoError(t, err)
		out, err := doc.encode()
		require.NoError(t, err)
		require.JSONEq(t, in, string(out))
		if !strings.Contains(in, `\u00e9`) {
			require.Equal(t, in, string(out))
		}
	}
	_, err := parseDocument([]byte(`{"a": 1} {"b": 2}`))
	require.EqualError(t, err, "trailing data after the JSON object")
	_, err = parseDocument([]byte(`[1]`))
	require.EqualError(t, err, "not a JSON object")
}

// TestUndoOfAFileTheCLIRewroteKeepsNoEmptyRecord: a file connect created (nothing to back up)
// that the CLI rewrote since is edited, and nothing of memhost's remains.
func TestUndoOfAFileTheCLIRewroteKeepsNoEmptyRecord(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude")
	userFile := filepath.Join(b.home, ".claude.json")
	b.opts.Env["FAKE_FILE"] = userFile
	b.opts.Env["FAKE_ADD"] = `{"mcpServers": {"memhost": {}}}`
	b.opts.Env["FAKE_REMOVE"] = `{"numStartups": 1, "mcpServers": {}}`
	require.NoError(t, Connect(t.Context(), b.opts))
	write(t, userFile, `{"numStartups": 1, "mcpServers": {"memhost": {}}}`)
	require.NoError(t, Undo(t.Context(), b.opts))
	require.Equal(t, `{"numStartups": 1, "mcpServers": {}}`, read(t, userFile))
	require.NoDirExists(t, filepath.Join(b.opts.StateDir, "claude"))
	require.Contains(t, b.log.String(), "disconnected claude\n")
}

// earlierCodexConnect is config.toml as an earlier memhost connect left it: an HTTP server
// with a read/write token in its headers.
const earlierCodexConnect = codexConfig + `
# Added by memhost connect (memhost connect --undo codex removes it).
[mcp_servers.memhost]
url = "http://127.0.0.1:7420/mcp"
http_headers = { Authorization = "Bearer mh_0123456789abcdefghijABCDEFGHIJ_-xyz0123456789ab" }
`

// TestUndoOfAnEarlierConnectMasksAndRevokesItsToken: a connection made by an earlier memhost
// registered a token in config.toml; the user edited the file since, so undo shows a diff of
// memhost's table going: the token in it is masked, the table goes, and the token is revoked.
func TestUndoOfAnEarlierConnectMasksAndRevokesItsToken(t *testing.T) {
	t.Parallel()
	b := setup(t, "codex")
	config := filepath.Join(b.home, ".codex", "config.toml")
	write(t, config, earlierCodexConnect+"\n[profiles.work]\nmodel = \"o9\"\n")
	dir := filepath.Join(b.opts.StateDir, "codex")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, (&state{CLI: "codex", TokenID: "0190aaaa-0000-7000-8000-000000000001",
		Files: []fileRecord{{Path: config, Existed: true, Mode: 0o644, Backup: "0-config.toml", After: digest([]byte(earlierCodexConnect), true)}}}).write(dir))
	write(t, filepath.Join(dir, "0-config.toml"), codexConfig)

	require.NoError(t, Undo(t.Context(), b.opts))
	shown := b.log.String()
	require.Contains(t, shown, `-http_headers = { Authorization = "Bearer mh_REDACTED" }`)
	require.NotContains(t, shown, "mh_0123456789", "no diff connect prints shows a token")
	require.Equal(t, codexConfig+"[profiles.work]\nmodel = \"o9\"\n", read(t, config))
	require.Equal(t, []string{"0190aaaa-0000-7000-8000-000000000001"}, b.revokedIDs())
}

// TestConnectWritesNoTokenAnywhere: after connecting every CLI, no file under the user's
// home (the CLIs' configuration, connect's backups and record) holds a token.
func TestConnectWritesNoTokenAnywhere(t *testing.T) {
	t.Parallel()
	for _, cli := range testplugins.ProviderCLIs {
		b := setup(t, cli)
		b.opts.Env["FAKE_FILE"] = filepath.Join(b.home, "fake-"+cli+".json")
		b.opts.Env["FAKE_ADD"] = "{}"
		require.NoError(t, Connect(t.Context(), b.opts))
		require.NoError(t, filepath.WalkDir(b.home, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			require.NotContains(t, read(t, path), "mh_", "%s: %s", cli, path)
			return nil
		}))
		require.NotContains(t, b.log.String(), "mh_", cli)
	}
}

// aiderPlanner is the provider of a CLI memhost's own code has never heard of.
type aiderPlanner struct{ home string }

func (p aiderPlanner) Connect(_ context.Context, r provider.ConnectRequest) (provider.Connection, error) {
	return provider.Connection{Steps: []provider.ConnectStep{
		{File: filepath.Join(p.home, ".aider.json"), JSONAppend: &provider.JSONAppend{Path: []string{"servers"}, Value: `{"command": "` + r.Memhost + `"}`}},
		{File: filepath.Join(p.home, ".aider.conf"), TextAppend: &provider.TextAppend{Text: "# memhost\nserver = " + r.Memhost + "\n"}},
	}}, nil
}

// TestConnectAppliesTheProvidersPlanForAnyCLI: connect knows no CLI itself; the provider's
// plan (a JSON list entry, a text block) is shown, applied and undone, for a CLI it has never
// heard of.
func TestConnectAppliesTheProvidersPlanForAnyCLI(t *testing.T) {
	t.Parallel()
	b := setup(t, "aider")
	b.opts.Provider = aiderPlanner{home: b.home}
	conf := filepath.Join(b.home, ".aider.conf")
	write(t, conf, "model = x\n")
	require.NoError(t, Connect(t.Context(), b.opts))
	require.Contains(t, b.log.String(), "edit "+filepath.Join(b.home, ".aider.json"))
	require.JSONEq(t, `{"servers": [{"command": "/opt/memhost/bin/memhost"}]}`, read(t, filepath.Join(b.home, ".aider.json")))
	require.Equal(t, "model = x\n\n# memhost\nserver = /opt/memhost/bin/memhost\n", read(t, conf))

	write(t, conf, read(t, conf)+"\nmine = 1\n") // changed since: only memhost's block goes
	require.NoError(t, Undo(t.Context(), b.opts))
	require.Equal(t, "model = x\n\nmine = 1\n", read(t, conf))
	require.NoFileExists(t, filepath.Join(b.home, ".aider.json"))
}

// gone stands for a provider plugin that is no longer installed.
type gone struct{}

func (gone) Connect(context.Context, provider.ConnectRequest) (provider.Connection, error) {
	return provider.Connection{}, errors.New("no provider plugin memhost-provider-codex")
}

// TestUndoOfUntouchedFilesNeedsNoProvider: files as connect left them are restored from the
// backups even when the provider is gone; a file changed since needs its plan, and undo then
// says why it cannot, changing nothing.
func TestUndoOfUntouchedFilesNeedsNoProvider(t *testing.T) {
	t.Parallel()
	b := setup(t, "codex")
	config := filepath.Join(b.home, ".codex", "config.toml")
	write(t, config, codexConfig)
	require.NoError(t, Connect(t.Context(), b.opts))
	connected := read(t, config)
	b.opts.Provider = gone{}

	write(t, config, connected+"\n[profiles.work]\nmodel = \"o9\"\n")
	require.EqualError(t, Undo(t.Context(), b.opts), "no provider plugin memhost-provider-codex")
	require.FileExists(t, filepath.Join(b.opts.StateDir, "codex", stateFile))

	write(t, config, connected)
	require.NoError(t, Undo(t.Context(), b.opts))
	require.Equal(t, codexConfig, read(t, config))
}
