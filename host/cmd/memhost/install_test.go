package main

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// TestVersionSaysWhatWasBuilt: memhost version and memhost --version print the same line: the
// version, commit and build date stamped at build time (make build, make dist) and the
// platform. The stamping itself is proved on a release archive by scripts/test-scripts.sh.
func TestVersionSaysWhatWasBuilt(t *testing.T) {
	t.Parallel()
	long, err := run(t, "version")
	require.NoError(t, err)
	short, err := run(t, "--version")
	require.NoError(t, err)
	require.Equal(t, long, short)
	require.Regexp(t, `^memhost `+regexp.QuoteMeta(server.Version)+` \(commit \S+, built \S+, go\S+ `+runtime.GOOS+`/`+runtime.GOARCH+`\)\n$`, long)
}

// TestPluginsListsEveryBundledKind: with no host running, memhost plugins shows the embedder,
// every provider (started by memhost run, not by the host), the dense embedder and the worker
// binaries (started by the host per configured table: listed as stopped, saying so), none as
// failed.
func TestPluginsListsEveryBundledKind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testplugins.Install(t, dir, "memhost-embedder-bm25", testplugins.BM25(t))
	for _, cli := range []string{"claude", "codex", "gemini"} {
		testplugins.Install(t, dir, "memhost-provider-"+cli, filepath.Join(testplugins.Providers(t), "memhost-provider-"+cli))
	}
	for _, w := range []string{"agentcli", "openaicompat"} {
		testplugins.Install(t, dir, "memhost-worker-"+w, filepath.Join(testplugins.Workers(t), "memhost-worker-"+w))
	}
	testplugins.Install(t, dir, "memhost-embedder-openaicompat", filepath.Join(testplugins.Dense(t), "memhost-embedder-openaicompat"))
	out, err := run(t, "plugins", "--config", writeConfig(t, dir, ""))
	require.NoError(t, err, out)
	require.Regexp(t, `(?m)^embedder\s+bm25-v1-384\s+\S+\s+ready\s`, out)
	for _, cli := range []string{"claude", "codex", "gemini"} {
		require.Regexp(t, `(?m)^provider\s+`+cli+`\s+\S+\s+ready\s`, out)
	}
	for _, w := range []string{"agentcli", "openaicompat"} {
		require.Regexp(t, `(?m)^worker\s+`+w+`\s+-\s+stopped\s+.*not running here: the host starts one per configured worker`, out)
	}
	require.Regexp(t, `(?m)^embedder\s+openaicompat\s+-\s+stopped\s+.*not running here: the host starts one per \[embedders.NAME\] table`, out)
	require.NotContains(t, out, "failed")
}

// TestPluginsShowsWhatEachStarterFinds: the plugins beside an installed binary (bin/plugins)
// are where memhost run finds providers, so the table lists the provider there; the host loads
// embedders from plugins.dirs alone, so an embedder only beside the binary is not listed, and
// config check agrees that none is configured.
func TestPluginsShowsWhatEachStarterFinds(t *testing.T) {
	t.Parallel()
	root, memhost := installedRoot(t, nil)
	own := filepath.Join(root, "bin", "plugins")
	require.NoError(t, os.MkdirAll(own, 0o755))
	testplugins.Install(t, own, "memhost-embedder-bm25", testplugins.BM25(t))
	testplugins.Install(t, own, "memhost-provider-claude", filepath.Join(testplugins.Providers(t), "memhost-provider-claude"))
	cfg := writeConfig(t, t.TempDir(), "")

	out, err := runBinary(t, memhost, nil, "plugins", "--config", cfg)
	require.NoError(t, err, out)
	require.Regexp(t, `(?m)^provider\s+claude\s+\S+\s+ready\s+\d+\s+0\s+`+regexp.QuoteMeta(own), out)
	require.NotRegexp(t, `(?m)^embedder\s+bm25`, out, "no embedder row")
	require.Contains(t, out, "embedder:    none (configured: auto)")

	out, err = runBinary(t, memhost, nil, "config", "check", "--config", cfg)
	require.Error(t, err)
	require.Contains(t, out, "plugins.dirs: no embedder plugin found")
}

// installedRoot lays out a checkout in a folder whose name needs quoting in a unit file and
// escaping in XML: bin/memhost (this package's binary) and scripts/ holding scripts.
func installedRoot(t *testing.T, scripts map[string]string) (root, memhost string) {
	t.Helper()
	return installedRootNamed(t, `mem host & 100% <x>`, scripts)
}

func installedRootNamed(t *testing.T, name string, scripts map[string]string) (root, memhost string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), name)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "scripts"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
	// Linked, not copied: a copy this process writes can still be open in a child a parallel
	// test forked, and exec'ing it then fails with "text file busy" (seen under load).
	memhost = testplugins.Install(t, filepath.Join(root, "bin"), "memhost", testplugins.Memhost(t))
	for name, body := range scripts {
		testplugins.WriteScript(t, filepath.Join(root, "scripts", name), body)
	}
	return root, memhost
}

// runBinary runs an installed memhost as a user does, with env added to a minimal environment.
func runBinary(t *testing.T, memhost string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), memhost, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestUpStopAndUninstallRunTheScriptsBesideTheBinary: memhost up, stop and uninstall become the
// scripts of the folder the binary was installed from (so a Ctrl-C or a service manager's
// SIGTERM reaches the script that stops the cluster), passing the environment on; without the
// scripts they say what is missing.
func TestUpStopAndUninstallRunTheScriptsBesideTheBinary(t *testing.T) {
	t.Parallel()
	echo := "#!/bin/sh\necho \"$(basename \"$0\") args=[$*] pid=$$ url=$MEMHOST_DATABASE_URL\"\n"
	root, memhost := installedRoot(t, map[string]string{"run.sh": echo, "stop.sh": echo, "uninstall.sh": echo})
	for args, want := range map[string]string{
		"up":              "run.sh args=[] pid=",
		"stop":            "stop.sh args=[] pid=",
		"uninstall":       "uninstall.sh args=[] pid=",
		"uninstall --yes": "uninstall.sh args=[--yes] pid=",
	} {
		out, err := runBinary(t, memhost, []string{"MEMHOST_DATABASE_URL=postgres://db.invalid/x"}, strings.Fields(args)...)
		require.NoError(t, err, out)
		require.Contains(t, out, want, args)
		require.Contains(t, out, "url=postgres://db.invalid/x", args)
	}

	require.NoError(t, os.Remove(filepath.Join(root, "scripts", "run.sh")))
	out, err := runBinary(t, memhost, nil, "up")
	require.Error(t, err)
	require.Contains(t, out, filepath.Join(root, "scripts", "run.sh")+" not found: this command runs from a checkout or an unpacked release archive")
}

// TestServiceUnitIsValid: the systemd user unit starts this install's memhost up from its
// folder, with the PATH it was installed with, quoted for a path with spaces, & and %;
// systemd-analyze verify accepts it where systemd is installed. A path systemd cannot start
// (a quote in it) is refused with the reason.
func TestServiceUnitIsValid(t *testing.T) {
	t.Parallel()
	root, memhost := installedRoot(t, nil)
	out, err := runBinary(t, memhost, []string{"HOME=" + t.TempDir()}, "service", "install", "--print", "--platform", "linux")
	require.NoError(t, err, out)
	quoted := `"` + strings.ReplaceAll(root, "%", "%%")
	require.Contains(t, out, "\nExecStart="+quoted+`/bin/memhost" up`+"\n")
	require.Contains(t, out, "\nWorkingDirectory="+strings.ReplaceAll(root, "%", "%%")+"\n")
	require.Contains(t, out, "\nEnvironment=\"PATH="+os.Getenv("PATH")+"\"\n")
	require.Contains(t, out, "\nWantedBy=default.target\n")
	if analyze, err := exec.LookPath("systemd-analyze"); err == nil {
		unit := filepath.Join(t.TempDir(), "memhost.service")
		require.NoError(t, os.WriteFile(unit, []byte(out), 0o644))
		verify, err := exec.CommandContext(t.Context(), analyze, "verify", "--man=no", unit).CombinedOutput()
		require.NoError(t, err, "%s\n%s", verify, out)
		require.NotContains(t, string(verify), "memhost.service", "no complaint about the unit")
	}

	_, memhost = installedRootNamed(t, `a "quoted" folder`, nil)
	out, err = runBinary(t, memhost, []string{"HOME=" + t.TempDir()}, "service", "install", "--print", "--platform", "linux")
	require.Error(t, err)
	require.Contains(t, out, "memhost service: systemd cannot start a program whose path holds a quote, backslash or newline")
}

// plistValue is one value of a property list, decoded generically.
type plistValue struct {
	XMLName xml.Name
	Text    string       `xml:",chardata"`
	Items   []plistValue `xml:",any"`
}

// dict maps a <dict>'s keys to their values.
func (v plistValue) dict(t *testing.T) map[string]plistValue {
	t.Helper()
	require.Equal(t, "dict", v.XMLName.Local)
	m := map[string]plistValue{}
	for i := 0; i+1 < len(v.Items); i += 2 {
		require.Equal(t, "key", v.Items[i].XMLName.Local)
		m[v.Items[i].Text] = v.Items[i+1]
	}
	return m
}

// TestServiceAgentIsAValidPlist: the launchd agent parses as a property list with the keys
// launchd needs to run memhost up at login and keep it up, logs in ~/Library/Logs/memhost,
// and the install's odd folder name escaped.
func TestServiceAgentIsAValidPlist(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	root, memhost := installedRoot(t, nil)
	out, err := runBinary(t, memhost, []string{"HOME=" + home}, "service", "install", "--print", "--platform", "darwin")
	require.NoError(t, err, out)
	var doc struct {
		XMLName xml.Name
		Version string       `xml:"version,attr"`
		Items   []plistValue `xml:",any"`
	}
	require.NoError(t, xml.Unmarshal([]byte(out), &doc), out)
	require.Equal(t, "plist", doc.XMLName.Local)
	require.Equal(t, "1.0", doc.Version)
	require.Len(t, doc.Items, 1)
	d := doc.Items[0].dict(t)
	require.Equal(t, "dev.memhost.memhost", d["Label"].Text)
	args := d["ProgramArguments"]
	require.Equal(t, "array", args.XMLName.Local)
	require.Len(t, args.Items, 2)
	require.Equal(t, filepath.Join(root, "bin", "memhost"), args.Items[0].Text)
	require.Equal(t, "up", args.Items[1].Text)
	require.Equal(t, root, d["WorkingDirectory"].Text)
	require.Equal(t, "true", d["RunAtLoad"].XMLName.Local)
	require.Equal(t, "false", d["KeepAlive"].dict(t)["SuccessfulExit"].XMLName.Local, "restarted when it fails, not after memhost stop")
	require.Equal(t, os.Getenv("PATH"), d["EnvironmentVariables"].dict(t)["PATH"].Text)
	logFile := filepath.Join(home, "Library", "Logs", "memhost", "memhost.log")
	require.Equal(t, logFile, d["StandardOutPath"].Text)
	require.Equal(t, logFile, d["StandardErrorPath"].Text)
}

// TestServiceInstallStatusUninstall: install writes the user unit and has systemctl reload and
// start it; status reports it; uninstall stops it and removes the file; status then says it is
// not installed. systemctl is a stand-in that records its arguments.
func TestServiceInstallStatusUninstall(t *testing.T) {
	t.Parallel()
	home, fake := t.TempDir(), t.TempDir()
	calls := filepath.Join(fake, "calls")
	testplugins.WriteScript(t, filepath.Join(fake, "systemctl"), "#!/bin/sh\necho \"$*\" >>"+calls+"\necho \"systemctl $*\"\n")
	_, memhost := installedRoot(t, nil)
	env := []string{"HOME=" + home, "PATH=" + fake + ":" + os.Getenv("PATH")}
	unit := filepath.Join(home, ".config", "systemd", "user", "memhost.service")

	out, err := runBinary(t, memhost, env, "service", "install", "--platform", "linux")
	require.NoError(t, err, out)
	require.Contains(t, out, "wrote "+unit)
	require.Contains(t, out, "Logs: journalctl --user -u memhost")
	require.FileExists(t, unit)
	out, err = runBinary(t, memhost, env, "service", "status", "--platform", "linux")
	require.NoError(t, err, out)
	require.Contains(t, out, "installed: "+unit)
	out, err = runBinary(t, memhost, env, "service", "uninstall", "--platform", "linux")
	require.NoError(t, err, out)
	require.Contains(t, out, "removed "+unit)
	require.NoFileExists(t, unit)
	out, err = runBinary(t, memhost, env, "service", "status", "--platform", "linux")
	require.NoError(t, err, out)
	require.Contains(t, out, "not installed")

	got, err := os.ReadFile(calls)
	require.NoError(t, err)
	require.Equal(t, "--user show-environment\n--user daemon-reload\n--user enable --now memhost.service\n--user status --no-pager memhost.service\n"+
		"--user disable --now memhost.service\n--user daemon-reload\n", string(got))
}

// TestServiceInstallWithoutAUserSession: where systemctl --user cannot reach a user manager
// (no login session, no lingering), install says so and what to do, and writes nothing, so
// status still says not installed.
func TestServiceInstallWithoutAUserSession(t *testing.T) {
	t.Parallel()
	home, fake := t.TempDir(), t.TempDir()
	calls := filepath.Join(fake, "calls")
	testplugins.WriteScript(t, filepath.Join(fake, "systemctl"), "#!/bin/sh\necho \"$*\" >>"+calls+"\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n")
	_, memhost := installedRoot(t, nil)
	env := []string{"HOME=" + home, "PATH=" + fake + ":" + os.Getenv("PATH")}
	unit := filepath.Join(home, ".config", "systemd", "user", "memhost.service")

	out, err := runBinary(t, memhost, env, "service", "install", "--platform", "linux")
	require.Error(t, err)
	require.Contains(t, out, "memhost service: no systemd user session here: run `memhost up` from your login instead, or enable lingering")
	require.Contains(t, out, "sudo loginctl enable-linger $USER")
	require.Contains(t, out, "(systemctl --user show-environment: Failed to connect to bus: No medium found); nothing was written")
	require.NoFileExists(t, unit)
	out, err = runBinary(t, memhost, env, "service", "status", "--platform", "linux")
	require.NoError(t, err, out)
	require.Contains(t, out, "not installed")
	got, err := os.ReadFile(calls)
	require.NoError(t, err)
	require.Equal(t, "--user show-environment\n", string(got), "nothing enabled")
}

// TestServiceUnitPassesWhatTheWorkersNeed: the unit sets the variables the configuration's
// workers and embedders are given (an API key, a worker's env list, an agent CLI's login) with
// their values at install time, readable by the user alone; one named but not set is warned
// about; nothing else of the installer's environment gets in.
func TestServiceUnitPassesWhatTheWorkersNeed(t *testing.T) {
	t.Parallel()
	home, fake := t.TempDir(), t.TempDir()
	testplugins.WriteScript(t, filepath.Join(fake, "systemctl"), "#!/bin/sh\nexit 0\n")
	root, memhost := installedRoot(t, nil)
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".memhost"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".memhost", "memhost.toml"), []byte(`[workers.local]
plugin = "openaicompat"
base_url = "http://127.0.0.1:11434/v1"
model = "qwen2.5:7b"
api_key_env = "LOCAL_LLM_KEY"
[workers.codex]
plugin = "agentcli"
cli = "codex"
env = ["FAKE_API_KEY", "UNSET_THING"]
[embedders.local]
plugin = "openaicompat"
base_url = "http://127.0.0.1:11434/v1"
model = "nomic-embed-text"
api_key_env = "EMBED_KEY"
`), 0o600))
	key := "sk-" + "fake-" + "0123456789"
	env := []string{"HOME=" + home, "PATH=" + fake + ":" + os.Getenv("PATH"), "LOCAL_LLM_KEY=" + key, "FAKE_API_KEY=fk", "EMBED_KEY=ek",
		"OPENAI_API_KEY=codex-login", "UNRELATED_SECRET=nope"}
	out, err := runBinary(t, memhost, env, "service", "install", "--platform", "linux")
	require.NoError(t, err, out)
	require.Contains(t, out, "it sets what the workers and embedders are given: EMBED_KEY, FAKE_API_KEY, LOCAL_LLM_KEY, OPENAI_API_KEY")
	require.Contains(t, out, "warning: UNSET_THING is named in the configuration but not set here")
	require.NotContains(t, out, "CODEX_HOME", "a CLI's login variables pass when set; they are not asked for")
	require.NotContains(t, out, key, "values are not printed")
	unit := filepath.Join(home, ".config", "systemd", "user", "memhost.service")
	body, err := os.ReadFile(unit)
	require.NoError(t, err)
	for _, line := range []string{`Environment="LOCAL_LLM_KEY=` + key + `"`, `Environment="FAKE_API_KEY=fk"`, `Environment="EMBED_KEY=ek"`, `Environment="OPENAI_API_KEY=codex-login"`} {
		require.Contains(t, string(body), "\n"+line+"\n")
	}
	require.NotContains(t, string(body), "UNRELATED_SECRET")
	fi, err := os.Stat(unit)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the unit holds keys")
	if analyze, err := exec.LookPath("systemd-analyze"); err == nil {
		verify, err := exec.CommandContext(t.Context(), analyze, "verify", "--man=no", unit).CombinedOutput()
		require.NoError(t, err, "%s", verify)
	}
}
