package embednode_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

var (
	installOnce sync.Once
	installDir  string // removed by TestMain
	launcher    string
	installErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if installDir != "" {
		_ = os.RemoveAll(installDir)
	}
	os.Exit(code)
}

// setup returns a launcher script for the plugin, named as the host expects
// (memhost-embedder-node), after installing the plugin's npm dependencies
// into a temporary folder once per test binary. node and npm must be
// installed: a machine without them fails these tests rather than skipping.
func setup(t *testing.T) string {
	t.Helper()
	installOnce.Do(func() { launcher, installErr = install() })
	require.NoError(t, installErr)
	return launcher
}

func install() (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("node (>= 20) is required to test the JavaScript example plugin: %w", err)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is required to test the JavaScript example plugin: %w", err)
	}
	src, err := filepath.Abs(".")
	if err != nil {
		return "", err
	}
	installDir, err = os.MkdirTemp("", "memhost-embed-node-")
	if err != nil {
		return "", err
	}
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(installDir, f), b, 0o644); err != nil {
			return "", err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error")
	cmd.Dir = installDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci: %w: %s", err, out)
	}
	path := filepath.Join(installDir, "memhost-embedder-node")
	script := "#!/bin/sh\nNODE_PATH='" + filepath.Join(installDir, "node_modules") + "' exec '" + node + "' '" + filepath.Join(src, "index.js") + "' \"$@\"\n"
	return path, os.WriteFile(path, []byte(script), 0o755)
}

// TestNodePluginPassesTheKit runs the conformance kit against the real node
// process through go-plugin with AutoMTLS: the host's TLS client accepts
// only the certificate the plugin printed in its handshake line.
func TestNodePluginPassesTheKit(t *testing.T) {
	t.Parallel()
	e := embeddertest.Launch(t, setup(t))
	info, err := e.Describe(t.Context())
	require.NoError(t, err)
	require.Equal(t, "hash-node-v1-64", info.Name)

	vecs, err := e.Embed(t.Context(), embedder.PurposeQuery, []string{"we use pnpm", "We use PNPM!"})
	require.NoError(t, err)
	require.Equal(t, vecs[0], vecs[1], "the same words give the same vector")

	_, err = e.Embed(t.Context(), embedder.PurposeDocument, make([]string, info.MaxBatch+1))
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	require.ErrorContains(t, err, "exceeds max batch 64")

	embeddertest.Exercise(t, e)
}

// TestNodePluginCertificate checks the certificate cert.js makes against
// what go-plugin's client does with it: base64 without padding of the DER,
// a certificate for "localhost" valid now, usable for a TLS server.
func TestNodePluginCertificate(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node (>= 20) is required to test the JavaScript example plugin")
	out, err := exec.Command(node, "-e", `process.stdout.write(require("./cert.js").selfSignedCert().handshake)`).Output()
	require.NoError(t, err)
	der, err := base64.RawStdEncoding.DecodeString(string(out))
	require.NoError(t, err, "go-plugin decodes the handshake certificate with base64.RawStdEncoding")
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	require.NoError(t, cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature), "self-signed")

	// What the host's TLS client verifies: the pinned certificate, for
	// "localhost", as a server.
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	_, err = cert.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	require.NoError(t, err)
}

func TestNodePluginRunByHandExplainsItself(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(setup(t))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 1, exit.ExitCode())
	require.Empty(t, stdout.String())
	require.Equal(t, "this program is a memhost embedder plugin: the memhost host starts it, it is not meant to be run by hand\n", stderr.String())
}
