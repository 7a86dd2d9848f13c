//go:build e2econsole

package e2econsole

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// axeVersion is the axe-core release the checks run, pinned as the e2e CLIs are.
const axeVersion = "4.14.1"

var (
	axeOnce sync.Once
	axeJS   string
	axeErr  error
)

// axeSource returns axe-core's browser bundle, installed from npm into a cache shared between
// runs ($TMPDIR/memhost-cli-cache/axe-core-VERSION, or MEMHOST_CLI_CACHE) under a file lock.
func axeSource(t testing.TB) string {
	t.Helper()
	axeOnce.Do(func() { axeJS, axeErr = installAxe() })
	if axeErr != nil {
		t.Fatalf("install axe-core %s: %v", axeVersion, axeErr)
	}
	return axeJS
}

func installAxe() (string, error) {
	root := os.Getenv("MEMHOST_CLI_CACHE")
	if root == "" {
		root = filepath.Join(os.TempDir(), "memhost-cli-cache")
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	dir := filepath.Join(root, "axe-core-"+axeVersion)
	bundle := filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	if b, err := os.ReadFile(bundle); err == nil {
		return string(b), nil
	}
	tmp, err := os.MkdirTemp(root, "axe-core.partial-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error", "axe-core@"+axeVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install axe-core@%s: %w\n%s", axeVersion, err, out)
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	b, err := os.ReadFile(bundle)
	return string(b), err
}
