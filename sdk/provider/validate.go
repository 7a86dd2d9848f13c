package provider

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes bounds Info.Name, which is also a command-line argument and a
// file name part (memhost-provider-<name>).
const MaxNameBytes = 64

// Validate reports the first way in which i breaks the protocol contract.
func (i Info) Validate() error {
	switch {
	case i.Name == "":
		return errors.New("name is empty")
	case len(i.Name) > MaxNameBytes:
		return fmt.Errorf("name is %d bytes, exceeds %d", len(i.Name), MaxNameBytes)
	case !validName(i.Name):
		return fmt.Errorf("name %q: must be lower-case letters, digits and '-', starting with a letter or digit", i.Name)
	case i.Executable == "":
		return errors.New("executable is empty")
	case strings.ContainsAny(i.Executable, "/\x00"):
		return fmt.Errorf("executable %q: must be a bare command name, not a path", i.Executable)
	}
	for _, f := range i.InstructionFiles {
		if !bareName(f) {
			return fmt.Errorf("instruction file %q: must be a bare file name", f)
		}
	}
	if m := i.MemoryFolders; m != nil {
		switch {
		case checkEnvName("memory folders config dir env", m.ConfigDirEnv) != nil:
			return checkEnvName("memory folders config dir env", m.ConfigDirEnv)
		case !filepath.IsLocal(m.DefaultConfigDir) || strings.ContainsRune(m.DefaultConfigDir, 0):
			return fmt.Errorf("memory folders default config dir %q: must be a relative path inside HOME", m.DefaultConfigDir)
		case !bareName(m.Subdir):
			return fmt.Errorf("memory folders subdir %q: must be a bare folder name", m.Subdir)
		case m.TruncateAt < 0:
			return fmt.Errorf("memory folders truncate at %d: must not be negative", m.TruncateAt)
		}
	}
	if i.Task != nil {
		if err := i.Task.Validate(); err != nil {
			return fmt.Errorf("task rules: %w", err)
		}
	}
	return nil
}

// bareName is a file name without a folder.
func bareName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\x00")
}

func validName(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case r == '-' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Validate reports the first field of s that memhost must not send.
func (s Spawn) Validate() error {
	switch {
	case s.CLI == "":
		return errors.New("spawn cli is empty")
	case !filepath.IsAbs(s.Executable):
		return fmt.Errorf("spawn executable %q: must be an absolute path", s.Executable)
	case !filepath.IsAbs(s.Dir):
		return fmt.Errorf("spawn dir %q: must be an absolute path", s.Dir)
	case !filepath.IsAbs(s.ScratchDir):
		return fmt.Errorf("spawn scratch dir %q: must be an absolute path", s.ScratchDir)
	}
	for k := range s.Env {
		if err := checkEnvName("spawn env", k); err != nil {
			return err
		}
	}
	if s.MCP != nil {
		if s.MCP.Name == "" || s.MCP.URL == "" {
			return errors.New("spawn mcp: name and url must both be set")
		}
		for k, v := range s.MCP.Headers {
			if !headerName(k) || strings.EqualFold(k, "Authorization") {
				return fmt.Errorf("spawn mcp header %q: must be a header name other than Authorization (Token is sent as it)", k)
			}
			if strings.ContainsAny(v, "\r\n\x00") {
				return fmt.Errorf("spawn mcp header %s: value holds a line break or NUL", k)
			}
		}
	}
	if strings.ContainsAny(s.PromptHook, "\n\x00") {
		return errors.New("spawn prompt hook: must be one line")
	}
	return nil
}

// headerName is an HTTP header name (RFC 9110 token).
func headerName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// MaxArgBytes bounds each argument and each environment variable (NAME=value)
// a plan adds: exec fails outright on one string over 128 KiB (Linux's
// MAX_ARG_STRLEN), and the CLI would not start at all. Flags and paths fit
// many times over; content belongs in a scratch file.
const MaxArgBytes = 16 << 10

// Validate reports the first way in which p, the answer to a Prepare of s,
// breaks the protocol contract: the user's arguments must be kept as given,
// every file must stay inside the scratch directory, the MCP token must
// reach neither the command line (other users can read it in the process
// list) nor a file that group or others can read, the banner must not reach
// the command line either, and no argument or variable the plan adds may
// exceed MaxArgBytes. The SDK applies it to what an implementation returns and
// to every plan memhost receives.
func (p Plan) Validate(s Spawn) error {
	user := runIndex(p.Args, s.Args)
	if user < 0 {
		return fmt.Errorf("args must contain the user's %d arguments unchanged, in order and adjacent", len(s.Args))
	}
	token := ""
	if s.MCP != nil {
		token = s.MCP.Token
	}
	for i, a := range p.Args {
		if strings.ContainsRune(a, 0) {
			return fmt.Errorf("args[%d] contains a NUL byte", i)
		}
		if token != "" && strings.Contains(a, token) {
			return fmt.Errorf("args[%d] contains the MCP token: the process list is readable by other users; pass it in a 0600 scratch file or the environment", i)
		}
		if i >= user && i < user+len(s.Args) {
			continue // the user's own, as given
		}
		if len(a) > MaxArgBytes {
			return fmt.Errorf("args[%d] is %d bytes, exceeds %d: pass content in a scratch file", i, len(a), MaxArgBytes)
		}
		if s.Banner != "" && strings.Contains(a, s.Banner) {
			return fmt.Errorf("args[%d] contains the banner: the process list is readable by other users; pass it in a 0600 scratch file", i)
		}
	}
	for k, v := range p.SetEnv {
		if err := checkEnvName("set env", k); err != nil {
			return err
		}
		if strings.ContainsRune(v, 0) {
			return fmt.Errorf("set env %s: value contains a NUL byte", k)
		}
		if n := len(k) + 1 + len(v); n > MaxArgBytes {
			return fmt.Errorf("set env %s is %d bytes, exceeds %d: pass content in a scratch file", k, n, MaxArgBytes)
		}
	}
	for _, k := range p.UnsetEnv {
		if err := checkEnvName("unset env", k); err != nil {
			return err
		}
		if _, both := p.SetEnv[k]; both {
			return fmt.Errorf("unset env %s: also in set env", k)
		}
	}
	if err := checkFiles(p.Files, token); err != nil {
		return err
	}
	for i, c := range p.Cleanup {
		if !filepath.IsAbs(c) || filepath.Clean(c) != c || c == "/" {
			return fmt.Errorf("cleanup[%d] %q: must be a clean absolute path other than /", i, c)
		}
		if c == s.ScratchDir || strings.HasPrefix(s.ScratchDir, c+"/") {
			return fmt.Errorf("cleanup[%d] %q: must not be the scratch directory or hold it", i, c)
		}
	}
	return nil
}

// MaxSessionIDBytes bounds Session.ID, which goes into the journal.
const MaxSessionIDBytes = 256

// Validate reports the first way in which s, a Finish answer, breaks the
// protocol contract.
func (s Session) Validate() error {
	switch {
	case len(s.ID) > MaxSessionIDBytes:
		return fmt.Errorf("session id is %d bytes, exceeds %d", len(s.ID), MaxSessionIDBytes)
	case strings.IndexFunc(s.ID, unicode.IsControl) >= 0 || !utf8.ValidString(s.ID):
		return errors.New("session id must be one line of valid UTF-8")
	case s.Transcript != "" && (!filepath.IsAbs(s.Transcript) || filepath.Clean(s.Transcript) != s.Transcript):
		return fmt.Errorf("transcript %q: must be a clean absolute path", s.Transcript)
	}
	return nil
}

// runIndex is where run first occurs in args as adjacent elements, or -1.
func runIndex(args, run []string) int {
	for i := 0; i+len(run) <= len(args); i++ {
		if slices.Equal(args[i:i+len(run)], run) {
			return i
		}
	}
	return -1
}

func checkEnvName(field, k string) error {
	if k == "" || strings.ContainsAny(k, "=\x00") {
		return fmt.Errorf("%s name %q: must be non-empty without '=' or NUL", field, k)
	}
	return nil
}

// checkFiles holds scratch entries to the rules of the ScratchFile message.
func checkFiles(files []File, token string) error {
	seen := make(map[string]bool, len(files))
	for i, f := range files {
		if !scratchPath(f.Path) {
			return fmt.Errorf("files[%d] path %q: must be a slash-separated relative path inside the scratch directory, without . or .. elements", i, f.Path)
		}
		if seen[f.Path] {
			return fmt.Errorf("files[%d] path %q: listed twice", i, f.Path)
		}
		seen[f.Path] = true
		if f.LinkTarget != "" {
			if !filepath.IsAbs(f.LinkTarget) || filepath.Clean(f.LinkTarget) != f.LinkTarget {
				return fmt.Errorf("files[%d] %s: link target %q must be a clean absolute path", i, f.Path, f.LinkTarget)
			}
			if f.Mode != 0 || len(f.Content) > 0 {
				return fmt.Errorf("files[%d] %s: a link has no mode or content", i, f.Path)
			}
			continue
		}
		if f.CreateTargetDir {
			return fmt.Errorf("files[%d] %s: create target dir needs a link target", i, f.Path)
		}
		if f.Mode&^0o777 != 0 {
			return fmt.Errorf("files[%d] %s: mode %#o has bits beyond 0777", i, f.Path, uint32(f.Mode))
		}
		if token != "" && f.Mode&0o077 != 0 && bytes.Contains(f.Content, []byte(token)) {
			return fmt.Errorf("files[%d] %s: holds the MCP token with mode %#o; it must not be readable by group or others (0600)", i, f.Path, uint32(f.Mode))
		}
	}
	// An entry inside another entry's path would be written through a file
	// or, worse, through a link into the user's own directories.
	for p := range seen {
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			if seen[dir] {
				return fmt.Errorf("files: %q is inside entry %q; entries must not nest", p, dir)
			}
		}
	}
	return nil
}

// scratchPath is fs.ValidPath without "." (the scratch directory itself).
func scratchPath(p string) bool {
	return p != "." && fs.ValidPath(p) && !strings.ContainsRune(p, 0)
}
