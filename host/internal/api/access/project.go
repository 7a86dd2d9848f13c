package access

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/project"
)

// MaxCwdBytes bounds a cwd argument (PATH_MAX on Linux).
const MaxCwdBytes = 4096

// Target is where a request asks to work: a project key, or a working directory on the host.
// (A CLI's stdio server, `memhost mcp`, holds a token bound to the project of the directory it
// was started in, so it needs no fallback here.)
type Target struct {
	Project string
	Cwd     string
}

// Resolve decides the project of one request and builds the memory service's Access.
//
// A token bound to a project always gets that project (and may not change global memories);
// a project argument that names another project is refused, and so is a cwd that exists here
// but is not one of the bound project's directories. Otherwise the project argument wins, then
// cwd (resolved on the host as the CLI resolves it). Every key is
// trimmed and validated (printable, at most project.MaxKeyBytes); a cwd must be an absolute,
// valid UTF-8 path. No error names the project a cwd resolves to or reveals host paths beyond
// the one the caller sent: a refusal must not make the host an oracle for its directories.
func Resolve(p auth.Principal, t Target) (memory.Access, error) {
	a := memory.Access{Admin: p.Has(auth.ScopeAdmin), Bound: p.ProjectKey != "", Actor: p.Name}
	requested, err := CleanKey("project", t.Project)
	if err != nil {
		return a, err
	}
	cwdKey, cwdErr := "", error(nil)
	if t.Cwd != "" {
		if err := checkCwd(t.Cwd); err != nil {
			return a, err
		}
		cwdKey, cwdErr = keyOfCwd(t.Cwd)
	}
	absent := cwdErr == errNotOnHost
	if bound := p.ProjectKey; bound != "" {
		switch {
		case requested != "" && requested != bound:
			return a, fmt.Errorf("%w: this token is bound to project %q; the project argument names %q", auth.ErrForbidden, bound, requested)
		case t.Cwd != "" && !absent && cwdKey != bound:
			// Another project's directory, or one that cannot be read: the same answer for
			// both, without the directory's key.
			return a, fmt.Errorf("%w: this token is bound to project %q; cwd is not a directory of that project", auth.ErrForbidden, bound)
		}
		// A cwd that does not exist here (a path on the client's machine) is only a hint next
		// to the binding, so it is ignored.
		a.Project = bound
		return a, nil
	}
	if cwdErr != nil && !absent {
		return a, cwdErr // unreadable, not merely absent here
	}
	switch {
	case requested != "" && cwdKey != "" && cwdKey != requested:
		return a, &rules.FieldError{Field: "project", Message: fmt.Sprintf("%q disagrees with cwd, which is another project; pass one of them", requested)}
	case requested != "":
	case cwdErr != nil:
		return a, cwdErr
	case cwdKey != "":
		requested = cwdKey
	}
	if requested == "" {
		return a, &rules.FieldError{Field: "project", Message: "is required: pass project (a project key) or cwd (the working directory), or use a token bound to a project"}
	}
	a.Project = requested
	return a, nil
}

// DirOfProject reports whether cwd is a directory on this host whose project is key: the
// only kind of directory a caller acting for key may have the host walk. A token that is not
// bound to a project acts for any key, so the directories that hold other people's and other
// projects' files are never walked, whatever their key: the file system's root, the host
// user's home directory and the directories above it.
func DirOfProject(cwd, key string) bool {
	if cwd == "" || checkCwd(cwd) != nil || HoldsHome(cwd) {
		return false
	}
	k, err := keyOfCwd(cwd)
	return err == nil && k == key
}

// HoldsHome reports whether dir is the root, the home directory or one above it (after
// links: a link to / is /): a directory that holds other projects and other people's files,
// never one project's. Its key would be shared by every session started there, so no command
// binds it as a project, and the host never walks it. A directory that cannot be read counts
// as one too.
func HoldsHome(dir string) bool {
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil || filepath.Dir(dir) == dir {
		return true
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return false
	}
	if h, err := filepath.EvalSymlinks(home); err == nil {
		home = h
	}
	rel, err := filepath.Rel(dir, home)
	return err == nil && (rel == "." || !strings.HasPrefix(rel, ".."))
}

// CleanKey trims a project key given in field and validates it; "" stays "" (not given).
func CleanKey(field, raw string) (string, error) {
	key := strings.TrimSpace(raw)
	if key == "" {
		if raw != "" {
			return "", &rules.FieldError{Field: field, Message: "must not be blank"}
		}
		return "", nil
	}
	if err := project.ValidateKey(key); err != nil {
		return "", &rules.FieldError{Field: field, Message: strings.TrimPrefix(err.Error(), "project: ")}
	}
	return key, nil
}

// Errors of a well-formed cwd that cannot be resolved here. errNotOnHost is compared by
// identity: Resolve ignores an absent cwd next to a binding.
var (
	errNotOnHost  = &rules.FieldError{Field: "cwd", Message: "does not exist on the memhost host; pass project (the project key, see `memhost project key`) instead"}
	errUnreadable = &rules.FieldError{Field: "cwd", Message: "cannot be read on the memhost host; pass project (the project key) instead"}
)

// checkCwd refuses a malformed cwd argument.
func checkCwd(cwd string) error {
	switch {
	case len(cwd) > MaxCwdBytes:
		return &rules.FieldError{Field: "cwd", Message: fmt.Sprintf("is %d bytes; the limit is %d bytes", len(cwd), MaxCwdBytes)}
	case !utf8.ValidString(cwd) || strings.ContainsRune(cwd, 0):
		return &rules.FieldError{Field: "cwd", Message: "must be valid UTF-8 without NUL bytes"}
	case !filepath.IsAbs(cwd):
		// "~/app" or "." would be resolved against the host's own home or working directory,
		// which is not what the caller meant.
		return &rules.FieldError{Field: "cwd", Message: "must be an absolute path"}
	}
	return nil
}

// keyOfCwd resolves a well-formed working directory to its project key.
func keyOfCwd(cwd string) (string, error) {
	id, err := project.Resolve(cwd)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", errNotOnHost
	case err != nil:
		return "", errUnreadable
	}
	return id.Key, nil
}
