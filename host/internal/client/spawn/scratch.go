package spawn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/memhost/memhost/sdk/provider"
)

// DefaultScratchRoot is the parent of every scratch directory of this user: one private
// folder in the temporary directory, so a later run can find and sweep what a killed one left.
func DefaultScratchRoot() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("memhost-run-%d", os.Getuid()))
}

// manifestSuffix names a scratch directory's manifest, and socketSuffix the private folder of
// its provider plugin's socket; both are siblings of the directory, which belongs to the
// provider's plan and starts empty.
const (
	manifestSuffix = ".json"
	socketSuffix   = ".sock"
)

// orphanAge is how old a scratch directory without a manifest must be before a sweep removes
// it: a run writes the manifest right after creating the directory.
const orphanAge = time.Minute

// manifest records who uses a scratch directory and what the session creates outside it.
type manifest struct {
	// PID and PIDStart are the memhost run process; CLIPID and CLIStart the CLI. A start
	// time tells a live process from a later one that reuses its pid.
	PID      int    `json:"pid"`
	PIDStart uint64 `json:"pid_start,omitempty"`
	CLIPID   int    `json:"cli_pid,omitempty"`
	CLIStart uint64 `json:"cli_start,omitempty"`
	// Cleanup are the plan's paths outside the directory.
	Cleanup []string `json:"cleanup,omitempty"`
}

// scratch is one spawn's scratch directory.
type scratch struct {
	dir string
	m   manifest
}

// openRoot creates root if needed and checks that it is a private directory of this user: it
// sits in a shared temporary directory, where another user could have put something first.
func openRoot(root string) error {
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create scratch root: %w", err)
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return fmt.Errorf("scratch root: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || (ok && int(st.Uid) != os.Getuid()) {
		return fmt.Errorf("scratch root %s is not a private directory of this user (mode 0700, owned by uid %d)", root, os.Getuid())
	}
	return nil
}

// newScratch creates an empty scratch directory for cli under root, with its manifest.
func newScratch(root, cli string) (*scratch, error) {
	dir, err := os.MkdirTemp(root, cli+"-")
	if err != nil {
		return nil, fmt.Errorf("create scratch directory: %w", err)
	}
	s := &scratch{dir: dir, m: manifest{PID: os.Getpid(), PIDStart: processStart(os.Getpid())}}
	if err := s.save(); err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	if dir := s.sockets(); dir != "" {
		if err := os.Mkdir(dir, 0o700); err != nil {
			_ = s.remove()
			return nil, fmt.Errorf("create socket directory: %w", err)
		}
	}
	return s, nil
}

// maxSocketDir bounds the socket folder's path: a unix socket's path (the folder plus
// go-plugin's "/plugin" and ten digits) must fit in 108 bytes.
const maxSocketDir = 90

// sockets is the private folder for the provider plugin's unix socket, or "" when the
// scratch root's path is too long for one (the plugin then uses its default place).
func (s *scratch) sockets() string {
	if len(s.dir)+len(socketSuffix) > maxSocketDir {
		return ""
	}
	return s.dir + socketSuffix
}

// save writes the manifest atomically, so a sweep never reads half of one.
func (s *scratch) save() error {
	data, err := json.Marshal(s.m)
	if err != nil {
		return fmt.Errorf("encode scratch manifest: %w", err)
	}
	tmp := s.dir + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write scratch manifest: %w", err)
	}
	if err := os.Rename(tmp, s.dir+manifestSuffix); err != nil {
		return fmt.Errorf("write scratch manifest: %w", err)
	}
	return nil
}

// started records the CLI's process, which keeps the directory from being swept while it
// runs.
func (s *scratch) started(pid int) error {
	s.m.CLIPID, s.m.CLIStart = pid, processStart(pid)
	return s.save()
}

// apply creates the plan's entries in the directory and records its cleanup paths. The plan
// has passed provider.Plan.Validate (the SDK's client checks every plan): entries are inside
// the directory and none is inside another, so nothing is written through a link.
func (s *scratch) apply(plan provider.Plan) error {
	for _, c := range plan.Cleanup {
		if _, err := os.Lstat(c); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the plan would remove %s afterwards, which exists already: memhost never removes what was there before", c)
		}
	}
	if len(plan.Cleanup) > 0 {
		s.m.Cleanup = plan.Cleanup
		if err := s.save(); err != nil {
			return err
		}
	}
	for _, f := range plan.Files {
		if err := s.create(f); err != nil {
			return fmt.Errorf("scratch file %s: %w", f.Path, err)
		}
	}
	return nil
}

func (s *scratch) create(f provider.File) error {
	path := filepath.Join(s.dir, filepath.FromSlash(f.Path))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if f.LinkTarget != "" {
		if f.CreateTargetDir {
			if _, err := os.Lstat(f.LinkTarget); errors.Is(err, fs.ErrNotExist) {
				if err := os.MkdirAll(f.LinkTarget, 0o700); err != nil {
					return err
				}
			}
		}
		return os.Symlink(f.LinkTarget, path)
	}
	// O_EXCL: never open something that is there already (a link above all).
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = file.Write(f.Content)
	if err == nil {
		// The mode exactly, whatever the umask.
		err = file.Chmod(f.Mode.Perm())
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}

// remove deletes the directory (links in it, not what they point to), the plan's cleanup
// paths and the manifest.
func (s *scratch) remove() error {
	return removeScratch(s.dir, s.m.Cleanup)
}

func removeScratch(dir string, cleanup []string) error {
	var errs []error
	for _, c := range cleanup {
		errs = append(errs, os.RemoveAll(c))
	}
	errs = append(errs, os.RemoveAll(dir), os.RemoveAll(dir+socketSuffix))
	if err := os.Remove(dir + manifestSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove scratch directory: %w", err)
	}
	return nil
}

// sweep removes the scratch directories under root whose memhost run and CLI are both gone
// (memhost run was killed before it could clean up), and directories without a manifest
// older than orphanAge. It returns how many it removed.
func sweep(root string) int {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(root, name)
		switch {
		case strings.HasSuffix(name, manifestSuffix):
			data, err := os.ReadFile(path)
			var m manifest
			if err != nil || json.Unmarshal(data, &m) != nil {
				continue
			}
			if alive(m.PID, m.PIDStart) || alive(m.CLIPID, m.CLIStart) {
				continue
			}
			if removeScratch(strings.TrimSuffix(path, manifestSuffix), m.Cleanup) == nil {
				removed++
			}
		case e.IsDir():
			// A socket folder goes with its scratch directory's manifest.
			if _, err := os.Lstat(strings.TrimSuffix(path, socketSuffix) + manifestSuffix); !errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > orphanAge {
				if os.RemoveAll(path) == nil {
					removed++
				}
			}
		}
	}
	return removed
}

// alive reports whether process pid exists and, when start is known, is the process that
// started then rather than a later one with the same pid.
func alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if start == 0 {
		return true
	}
	now := processStart(pid)
	return now == 0 || now == start
}
