package project

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/memhost/memhost/host/internal/core/redact"
)

// Identity sources, in the order Resolve prefers them.
const (
	// SourceGitRemote means the key is a normalised remote URL, shared by every clone.
	SourceGitRemote = "git-remote"
	// SourceGitRoot means the repository has no remote, so the key is its local root path.
	SourceGitRoot = "git-root"
	// SourcePath means the directory is not inside a repository; the key is the path itself.
	SourcePath = "path"
)

// MaxKeyBytes bounds a project key; it is stored and indexed on every memory row.
const MaxKeyBytes = 512

// Identity is the resolved project of a directory.
type Identity struct {
	// Key scopes project memories. Never contains credentials.
	Key string
	// Root is the absolute, symlink-resolved repository root, or the directory itself
	// when it is not inside a repository.
	Root string
	// Source says how Key was derived: SourceGitRemote, SourceGitRoot or SourcePath.
	Source string
}

// Resolve derives the project identity of dir.
//
// It walks up from dir to the nearest `.git` (directory, or file pointing elsewhere as in
// worktrees and submodules). The key is then the normalised URL of remote "origin"; when
// there is no origin, the first remote with a url in config-file order (file order is the
// only order a user can see and edit, so it is the least surprising tie-break); when there
// is no remote at all, the repository root path. Outside a repository the key is dir itself.
// Paths are absolute and symlink-resolved so two spellings of one directory share memory.
func Resolve(dir string) (Identity, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Identity{}, fmt.Errorf("resolve project of %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Identity{}, fmt.Errorf("resolve project of %q: %w", dir, err)
	}
	root, gitDir, found, err := findGitDir(real)
	if err != nil {
		return Identity{}, fmt.Errorf("resolve project of %q: %w", dir, err)
	}
	if !found {
		return Identity{Key: derivedKey(real), Root: real, Source: SourcePath}, nil
	}
	remote, err := remoteURL(gitDir)
	if err != nil {
		return Identity{}, fmt.Errorf("resolve project of %q: %w", dir, err)
	}
	if remote != "" {
		if key := NormalizeRemote(remote); key != "" {
			return Identity{Key: derivedKey(key), Root: root, Source: SourceGitRemote}, nil
		}
	}
	return Identity{Key: derivedKey(root), Root: root, Source: SourceGitRoot}, nil
}

// derivedKey makes a key derived from a path or remote URL pass ValidateKey's character
// rules, so a directory always has a usable key: control and format characters (what
// rules.Hidden names) and invalid UTF-8 become '_', and a key over
// MaxKeyBytes (a 3 KB remote URL) keeps its first bytes plus a hash of the whole, which stays
// unique and stable across machines.
func derivedKey(key string) string {
	key = strings.Map(func(r rune) rune {
		if rules.Hidden(r) {
			return '_'
		}
		return r
	}, strings.ToValidUTF8(key, "_"))
	if len(key) <= MaxKeyBytes {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	suffix := "~" + hex.EncodeToString(sum[:8])
	cut := MaxKeyBytes - len(suffix)
	for cut > 0 && !utf8.RuneStart(key[cut]) {
		cut--
	}
	return key[:cut] + suffix
}

// findGitDir walks up from dir to the first directory holding a `.git` entry and returns
// that directory (the work-tree root) and the git directory it designates.
func findGitDir(dir string) (root, gitDir string, found bool, err error) {
	for cur := dir; ; {
		candidate := filepath.Join(cur, ".git")
		info, statErr := os.Stat(candidate)
		switch {
		case statErr == nil && info.IsDir():
			return cur, candidate, true, nil
		case statErr == nil:
			target, err := readGitFile(candidate)
			if err != nil {
				return "", "", false, err
			}
			return cur, target, true, nil
		case !errors.Is(statErr, fs.ErrNotExist):
			return "", "", false, fmt.Errorf("stat %s: %w", candidate, statErr)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", "", false, nil
		}
		cur = parent
	}
}

// readGitFile follows a `.git` file ("gitdir: <path>"), as written for worktrees and
// submodules. A relative path is relative to the directory holding the file.
func readGitFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	line := strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0])
	target, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s: expected \"gitdir: <path>\", got %q", path, line)
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return filepath.Clean(target), nil
}

// configPath finds the config file of gitDir. Linked worktrees keep a `commondir` file
// pointing at the main repository's git directory, which holds the shared config.
func configPath(gitDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	switch {
	case err == nil:
		common := strings.TrimSpace(string(data))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		return filepath.Join(filepath.Clean(common), "config"), nil
	case errors.Is(err, fs.ErrNotExist):
		return filepath.Join(gitDir, "config"), nil
	default:
		return "", fmt.Errorf("read commondir of %s: %w", gitDir, err)
	}
}

// remoteURL returns the url of remote "origin", else of the first remote in file order,
// else "". A missing config file means no remote (a freshly `git init`ed repo may lack one).
func remoteURL(gitDir string) (string, error) {
	path, err := configPath(gitDir)
	if err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("open git config: %w", err)
	}
	defer f.Close()
	entries, err := parseGitConfig(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	first := ""
	for _, e := range entries {
		if e.section != "remote" || e.key != "url" || e.value == "" {
			continue
		}
		if e.subsection == "origin" {
			return e.value, nil
		}
		if first == "" {
			first = e.value
		}
	}
	return first, nil
}

// defaultPorts are dropped from keys so that https://host:443/x and https://host/x agree.
var defaultPorts = map[string]string{"http": "80", "https": "443", "git": "9418"}

// NormalizeRemote turns a git remote URL into a project key: lowercase host, no scheme, no
// userinfo and no query or fragment (credentials are never kept: `?private_token=...` is one
// way to put a token in a remote), no port for ssh or default ports, path case kept,
// trailing slashes and a `.git` suffix dropped. scp-like `git@host:Org/Repo.git` becomes
// `host/Org/Repo`, so ssh and https clones of one repository share a key. Local-path remotes
// keep their cleaned path. It returns "" when nothing usable is left.
func NormalizeRemote(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	var host, path string
	switch {
	case strings.Contains(raw, "://"):
		u, err := url.Parse(raw)
		if err != nil {
			// An unparsable URL may still carry credentials; strip everything up to '@'
			// in the authority by hand rather than keep it verbatim.
			rest := withoutQuery(raw[strings.Index(raw, "://")+3:])
			slash := strings.IndexByte(rest, '/')
			if slash < 0 {
				slash = len(rest)
			}
			authority := rest[:slash]
			if at := strings.LastIndexByte(authority, '@'); at >= 0 {
				authority = authority[at+1:]
			}
			host, path = strings.ToLower(authority), rest[slash:]
			break
		}
		scheme := strings.ToLower(u.Scheme)
		if scheme == "file" {
			host, path = "", u.Path
			break
		}
		host = strings.ToLower(u.Hostname())
		if port := u.Port(); port != "" && !strings.Contains(scheme, "ssh") && defaultPorts[scheme] != port {
			host += ":" + port
		}
		path = u.Path
	case isSCPLike(raw):
		colon := strings.IndexByte(raw, ':')
		authority := raw[:colon]
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			authority = authority[at+1:]
		}
		host, path = strings.ToLower(authority), withoutQuery(raw[colon+1:])
	default:
		// A local path remote (`/srv/git/x.git`, `../x`): no host, keep the path.
		path = filepath.ToSlash(filepath.Clean(raw))
		return trimRepoSuffix(path)
	}
	path = strings.Trim(path, "/")
	path = trimRepoSuffix(path)
	switch {
	case host == "":
		if path == "" {
			return ""
		}
		return "/" + path
	case path == "":
		return host
	default:
		return host + "/" + path
	}
}

// withoutQuery cuts a remote's query and fragment, which git's transports do not use to name a
// repository but which can carry a token.
func withoutQuery(s string) string {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		return s[:i]
	}
	return s
}

func trimRepoSuffix(p string) string {
	for {
		trimmed := strings.TrimSuffix(strings.TrimRight(p, "/"), ".git")
		if trimmed == p {
			return p
		}
		p = trimmed
	}
}

// isSCPLike matches git's rule: a colon before any slash, and not a Windows drive letter.
func isSCPLike(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 {
		return false
	}
	if slash := strings.IndexByte(s, '/'); slash >= 0 && slash < colon {
		return false
	}
	return colon != 1 // "C:\repo" is a path, not host "C"
}

// ValidateKey checks a project key supplied by a client. A key is shown to users (in tables,
// banners and token listings) and stored on every memory row and history entry it scopes, so
// it is held to the rules of a one-line field (rules.CheckLine: valid UTF-8, no control or
// format characters, something visible), at most MaxKeyBytes, and it must carry no
// credentials.
func ValidateKey(key string) error {
	switch {
	case key == "":
		return errors.New("project: must not be empty")
	case len(key) > MaxKeyBytes:
		return fmt.Errorf("project: %d bytes exceeds the limit of %d bytes", len(key), MaxKeyBytes)
	}
	if err := rules.CheckLine("project", key, MaxKeyBytes); err != nil {
		return err
	}
	return checkCredentials(key)
}

// checkCredentials refuses a key holding user information in a URL (a login, or a password
// or token in its place: "https://deploy:PW@host/x") or anything the secret redactor
// detects. The message never repeats the key.
func checkCredentials(key string) error {
	if i := strings.Index(key, "://"); i >= 0 {
		authority := key[i+3:]
		if end := strings.IndexAny(authority, "/?#"); end >= 0 {
			authority = authority[:end]
		}
		if strings.Contains(authority, "@") {
			return errors.New("project: must not carry credentials: remove the user name and password (user:password@) from the URL; " +
				"`memhost project key` prints the key memhost derives for a clone")
		}
	}
	if clean(key) {
		return nil
	}
	r, err := redact.New()
	if err != nil {
		return errors.New("project: cannot be checked for secrets right now")
	}
	if _, findings := r.Redact(key); len(findings) > 0 {
		return fmt.Errorf("project: must not carry a secret (found one the redactor calls %s); "+
			"a project key is stored on every memory and shown to every token of the project", findings[0].RuleID)
	}
	remember(key)
	return nil
}

// maxCleanKeys bounds the keys checkCredentials remembers as free of secrets. A host serves
// few projects, and scanning a key costs about half a millisecond of CPU on every request that
// names one; forgetting them all when full keeps the memory bounded whatever callers send.
const maxCleanKeys = 4096

var cleanKeys = struct {
	sync.Mutex
	m map[string]struct{}
}{m: map[string]struct{}{}}

func clean(key string) bool {
	cleanKeys.Lock()
	defer cleanKeys.Unlock()
	_, ok := cleanKeys.m[key]
	return ok
}

func remember(key string) {
	cleanKeys.Lock()
	defer cleanKeys.Unlock()
	if len(cleanKeys.m) >= maxCleanKeys {
		clear(cleanKeys.m)
	}
	cleanKeys.m[key] = struct{}{}
}
