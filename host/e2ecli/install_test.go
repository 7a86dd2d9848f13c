//go:build e2ecli

package e2ecli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// npmPackage is one CLI pinned to the version these tests were verified with.
type npmPackage struct {
	name    string // npm package
	version string
	bin     string // its command in node_modules/.bin
}

// The pinned CLIs: the newest releases on npm when checked (2026-11-23), each verified to pass
// every test in this package. Raise a pin only together with a green run and docs/e2e-cli.md.
var (
	claudeCode = npmPackage{name: "@anthropic-ai/claude-code", version: "2.1.330", bin: "claude"}
	codex      = npmPackage{name: "@openai/codex", version: "0.169.0", bin: "codex"}
	geminiCLI  = npmPackage{name: "@google/gemini-cli", version: "0.61.0", bin: "gemini"}
	pinned     = []npmPackage{claudeCode, codex, geminiCLI}
)

// installTimeout bounds one npm install of all three (about 30 s on a warm npm cache).
const installTimeout = 10 * time.Minute

var (
	installOnce sync.Once
	installDir  string
	installErr  error
)

// cacheRoot holds one install per set of versions; MEMHOST_CLI_CACHE moves it.
func cacheRoot() string {
	if d := os.Getenv("MEMHOST_CLI_CACHE"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "memhost-cli-cache")
}

// cacheKey names the install folder after every pinned version, so a changed pin installs
// afresh beside the old one.
func cacheKey() string {
	parts := make([]string, len(pinned))
	for i, p := range pinned {
		parts[i] = strings.NewReplacer("@", "", "/", "-").Replace(p.name) + "-" + p.version
	}
	return strings.Join(parts, "_")
}

// cliPath returns the path of p's command, installing every pinned CLI on first use.
func cliPath(t *testing.T, p npmPackage) string {
	t.Helper()
	installOnce.Do(func() { installDir, installErr = installCLIs() })
	if installErr != nil {
		t.Fatalf("install the pinned CLIs: %v", installErr)
	}
	return filepath.Join(installDir, "node_modules", ".bin", p.bin)
}

// installCLIs returns the cached install for the pinned versions, making it under a file
// lock (several test processes may start at once) in a temporary folder renamed into place,
// so an interrupted install never looks complete.
func installCLIs() (string, error) {
	root := cacheRoot()
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("cache folder: %w", err)
	}
	dir := filepath.Join(root, cacheKey())
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("cache lock: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("cache lock: %w", err)
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	if checkInstall(dir) == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(root, cacheKey()+".partial-")
	if err != nil {
		return "", fmt.Errorf("cache folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	args := []string{"install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error"}
	for _, p := range pinned {
		args = append(args, p.name+"@"+p.version)
	}
	cmd := exec.CommandContext(ctx, "npm", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	if err := checkInstall(tmp); err != nil {
		return "", err
	}
	if err := checkVersions(tmp); err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("remove a stale install: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp made it private
		return "", fmt.Errorf("cache folder: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("move the install into the cache: %w", err)
	}
	return dir, nil
}

// checkInstall verifies that dir holds exactly the pinned versions and their commands.
func checkInstall(dir string) error {
	for _, p := range pinned {
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", p.name, "package.json"))
		if err != nil {
			return fmt.Errorf("%s is not installed: %w", p.name, err)
		}
		var meta struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(b, &meta); err != nil || meta.Version != p.version {
			return fmt.Errorf("%s: installed %q, pinned %q", p.name, meta.Version, p.version)
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", p.bin)); err != nil {
			return fmt.Errorf("%s: command %s: %w", p.name, p.bin, err)
		}
	}
	return nil
}

// checkVersions runs each fresh command's --version: Claude Code's npm package holds a
// placeholder until its postinstall copies the native binary in, and an install whose
// scripts did not run must not be cached.
func checkVersions(dir string) error {
	home, err := os.MkdirTemp("", "memhost-cli-version-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	for _, p := range pinned {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, filepath.Join(dir, "node_modules", ".bin", p.bin), "--version")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CODEX_HOME=" + home, "GEMINI_CLI_HOME=" + home, "CLAUDE_CONFIG_DIR=" + home}
		out, err := cmd.Output()
		cancel()
		if err != nil || !strings.Contains(string(out), p.version) {
			return fmt.Errorf("%s --version: %q, %v (want %s)", p.bin, strings.TrimSpace(string(out)), err, p.version)
		}
	}
	return nil
}
