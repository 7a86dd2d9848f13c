package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memhost/memhost/sdk/plugin"
)

// binaryPrefix starts the file name of every plugin binary:
// memhost-<kind>-<name>, e.g. memhost-embedder-bm25.
const binaryPrefix = "memhost-"

// Candidate is a plugin binary found by Discover and not yet launched.
type Candidate struct {
	// Kind is the plugin kind from the file name.
	Kind string
	// Name is the part of the file name after the kind, e.g. "bm25".
	Name string
	// Path is the absolute path of the binary.
	Path string
	// Checksum is the expected sha256 of the binary in lower-case hex, or ""
	// when no allow-list is configured. The Supervisor re-checks it at every
	// launch, so a binary swapped after discovery does not run.
	Checksum string
	// Env are KEY=VALUE settings added to the process's allow-listed environment (see
	// pluginEnv): what one configured instance of a plugin is told, e.g. a worker's
	// MEMHOST_WORKER_* settings. Discover leaves it empty.
	Env []string
	// Instance is the configured instance this candidate runs, e.g. the NAME of an
	// [embedders.NAME] table; "" for a plugin started as found.
	Instance string
	// Keys maps each setting variable of a configured instance to the operator's key it comes
	// from (see Settings); what the plugin says is told in those keys.
	Keys map[string]string
	// CallTimeout, when set, bounds this plugin's calls instead of Config.CallTimeout: a
	// configured instance whose own timeout is longer (a slow local model) is not cut short.
	CallTimeout time.Duration
}

// Binary returns the candidate's file name, the key of the checksum
// allow-list.
func (c Candidate) Binary() string { return binaryPrefix + c.Kind + "-" + c.Name }

// DiscoveryError explains why a file that looks like a plugin was skipped.
type DiscoveryError struct {
	Path   string
	Reason string
	Err    error // underlying cause, may be nil
}

func (e *DiscoveryError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("plugin %s skipped: %s: %v", e.Path, e.Reason, e.Err)
	}
	return fmt.Sprintf("plugin %s skipped: %s", e.Path, e.Reason)
}

func (e *DiscoveryError) Unwrap() error { return e.Err }

// ErrChecksumMismatch is wrapped by discovery and launch errors of a binary
// whose sha256 differs from the allow-list.
var ErrChecksumMismatch = errors.New("plugin checksum does not match the allow-list")

// Discover lists the plugin binaries in dirs, in order; when two directories
// hold the same file name the first one wins.
//
// Only files named memhost-<kind>-<name> are considered; other files are
// ignored silently, since plugin directories may hold READMEs and the like.
// A matching name is skipped, with a *DiscoveryError in the second result for
// the caller to log, when it is not an executable regular file (symbolic
// links are followed), its kind is unknown to this host, or it is shadowed by
// an earlier directory.
//
// checksums maps binary file names to sha256 hex digests. When it is
// non-empty it is an allow-list: unlisted binaries and binaries whose digest
// differs are skipped. Listed binaries found in no directory are reported too,
// since a configured plugin that is missing is worth an operator's attention.
func Discover(dirs []string, checksums map[string]string) ([]Candidate, []error) {
	known := knownKinds()
	var (
		cands []Candidate
		errs  []error
		seen  = map[string]string{} // binary file name -> path that won
	)
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			errs = append(errs, &DiscoveryError{Path: dir, Reason: "bad plugin directory", Err: err})
			continue
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			errs = append(errs, &DiscoveryError{Path: abs, Reason: "cannot read plugin directory", Err: err})
			continue
		}
		for _, ent := range entries {
			file := ent.Name()
			if !strings.HasPrefix(file, binaryPrefix) {
				continue
			}
			path := filepath.Join(abs, file)
			kind, name, ok := strings.Cut(strings.TrimPrefix(file, binaryPrefix), "-")
			if !ok || kind == "" || name == "" {
				errs = append(errs, &DiscoveryError{Path: path, Reason: "file name is not memhost-<kind>-<name>"})
				continue
			}
			if winner, dup := seen[file]; dup {
				errs = append(errs, &DiscoveryError{Path: path, Reason: "shadowed by " + winner})
				continue
			}
			fi, err := os.Stat(path)
			if err != nil {
				errs = append(errs, &DiscoveryError{Path: path, Reason: "cannot stat", Err: err})
				continue
			}
			if !fi.Mode().IsRegular() {
				errs = append(errs, &DiscoveryError{Path: path, Reason: "not a regular file"})
				continue
			}
			if fi.Mode().Perm()&0o111 == 0 {
				errs = append(errs, &DiscoveryError{Path: path, Reason: "not executable"})
				continue
			}
			if !known[kind] {
				errs = append(errs, &DiscoveryError{Path: path, Reason: fmt.Sprintf("unknown plugin kind %q (this host knows %s)", kind, strings.Join(sortedKeys(known), ", "))})
				continue
			}
			c := Candidate{Kind: kind, Name: name, Path: path}
			if len(checksums) > 0 {
				want, listed := checksums[file]
				if !listed {
					errs = append(errs, &DiscoveryError{Path: path, Reason: "not in the plugin checksum allow-list"})
					continue
				}
				want = strings.ToLower(strings.TrimSpace(want))
				if err := verifyChecksum(path, want); err != nil {
					errs = append(errs, &DiscoveryError{Path: path, Reason: "checksum verification failed", Err: err})
					continue
				}
				c.Checksum = want
			}
			seen[file] = path
			cands = append(cands, c)
		}
	}
	for _, file := range sortedKeys(checksums) {
		if _, found := seen[file]; !found && !reported(errs, file) {
			errs = append(errs, &DiscoveryError{Path: file, Reason: fmt.Sprintf("listed in the checksum allow-list but not found in %s", strings.Join(dirs, ", "))})
		}
	}
	return cands, errs
}

// reported says whether errs already explains why file was not loaded, so a
// rejected allow-listed binary is not also reported as missing.
func reported(errs []error, file string) bool {
	for _, err := range errs {
		var de *DiscoveryError
		if errors.As(err, &de) && filepath.Base(de.Path) == file {
			return true
		}
	}
	return false
}

// verifyChecksum compares the sha256 of the file at path with want (hex).
func verifyChecksum(path, want string) error {
	if _, err := hex.DecodeString(want); err != nil || len(want) != sha256.Size*2 {
		return fmt.Errorf("allow-list entry %q is not a sha256 hex digest", want)
	}
	got, err := fileSHA256(path)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%w: file has sha256 %s, allow-list expects %s", ErrChecksumMismatch, got, want)
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// knownKinds are the kinds the SDK defines; a Supervisor runs those it has an
// Adapter for.
func knownKinds() map[string]bool {
	known := map[string]bool{}
	for _, kind := range plugin.KindNames() {
		known[kind] = true
	}
	return known
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
