package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// realTemp returns a symlink-resolved temp dir so expected paths match Resolve's output
// (macOS /var -> /private/var and similar).
func realTemp(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// newRepo creates dir/.git with the given config text (no config file when empty).
func newRepo(t *testing.T, dir, config string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git", "objects"), 0o755))
	writeFile(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
	if config != "" {
		writeFile(t, filepath.Join(dir, ".git", "config"), config)
	}
}

func TestResolveRemoteHTTPSWithCredentials(t *testing.T) {
	t.Parallel()
	root := realTemp(t)
	// Synthetic credentials: the point is that they must never reach the key.
	cred := "user:" + strings.Repeat("x", 8)
	newRepo(t, root, "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://"+cred+"@GitLab.Example.com/a/b.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n")

	id, err := Resolve(root)
	require.NoError(t, err)
	require.Equal(t, Identity{Key: "gitlab.example.com/a/b", Root: root, Source: SourceGitRemote}, id)
	require.NotContains(t, id.Key, "xxxxxxxx")
}

func TestResolveSCPLikeFromNestedSubdirectory(t *testing.T) {
	t.Parallel()
	root := realTemp(t)
	newRepo(t, root, "[remote \"origin\"]\n  url = git@GitHub.com:Org/Repo.git\n")
	nested := filepath.Join(root, "src", "deep", "pkg")
	require.NoError(t, os.MkdirAll(nested, 0o755))

	id, err := Resolve(nested)
	require.NoError(t, err)
	require.Equal(t, Identity{Key: "github.com/Org/Repo", Root: root, Source: SourceGitRemote}, id)
}

func TestResolveNoRemoteUsesRoot(t *testing.T) {
	t.Parallel()
	root := realTemp(t)
	newRepo(t, root, "[core]\n\trepositoryformatversion = 0\n")
	sub := filepath.Join(root, "sub")
	require.NoError(t, os.MkdirAll(sub, 0o755))

	id, err := Resolve(sub)
	require.NoError(t, err)
	require.Equal(t, Identity{Key: root, Root: root, Source: SourceGitRoot}, id)

	// A repository without any config file is also "no remote".
	bare := realTemp(t)
	newRepo(t, bare, "")
	id, err = Resolve(bare)
	require.NoError(t, err)
	require.Equal(t, SourceGitRoot, id.Source)
	require.Equal(t, bare, id.Key)
}

func TestResolveNonOriginRemoteUsesFirstInFileOrder(t *testing.T) {
	t.Parallel()
	root := realTemp(t)
	newRepo(t, root, "[remote \"upstream\"]\n\turl = https://github.com/up/stream.git\n[remote \"fork\"]\n\turl = https://github.com/me/fork.git\n")
	id, err := Resolve(root)
	require.NoError(t, err)
	require.Equal(t, "github.com/up/stream", id.Key)

	// origin wins wherever it appears in the file.
	other := realTemp(t)
	newRepo(t, other, "[remote \"upstream\"]\n\turl = https://github.com/up/stream.git\n[remote \"origin\"]\n\turl = https://github.com/me/fork.git\n")
	id, err = Resolve(other)
	require.NoError(t, err)
	require.Equal(t, "github.com/me/fork", id.Key)
}

func TestResolveWorktreeReadsCommonConfig(t *testing.T) {
	t.Parallel()
	base := realTemp(t)
	main := filepath.Join(base, "main")
	newRepo(t, main, "[remote \"origin\"]\n\turl = ssh://git@github.com:22/Org/Shared.git\n")
	wtGit := filepath.Join(main, ".git", "worktrees", "feature")
	writeFile(t, filepath.Join(wtGit, "commondir"), "../..\n")
	writeFile(t, filepath.Join(wtGit, "HEAD"), "ref: refs/heads/feature\n")
	wt := filepath.Join(base, "feature")
	writeFile(t, filepath.Join(wt, ".git"), "gitdir: "+wtGit+"\n")

	id, err := Resolve(wt)
	require.NoError(t, err)
	require.Equal(t, Identity{Key: "github.com/Org/Shared", Root: wt, Source: SourceGitRemote}, id)
}

func TestResolveSubmoduleRelativeGitdir(t *testing.T) {
	t.Parallel()
	super := realTemp(t)
	newRepo(t, super, "[remote \"origin\"]\n\turl = https://github.com/org/super\n")
	modGit := filepath.Join(super, ".git", "modules", "lib")
	writeFile(t, filepath.Join(modGit, "config"), "[remote \"origin\"]\n\turl = https://github.com/org/lib.git\n")
	lib := filepath.Join(super, "lib")
	writeFile(t, filepath.Join(lib, ".git"), "gitdir: ../.git/modules/lib\n")

	id, err := Resolve(lib)
	require.NoError(t, err)
	require.Equal(t, Identity{Key: "github.com/org/lib", Root: lib, Source: SourceGitRemote}, id)
}

func TestResolveNotARepository(t *testing.T) {
	t.Parallel()
	dir := realTemp(t)
	id, err := Resolve(dir)
	require.NoError(t, err)
	require.Equal(t, Identity{Key: dir, Root: dir, Source: SourcePath}, id)
}

func TestResolveSymlinkedDirectory(t *testing.T) {
	t.Parallel()
	base := realTemp(t)
	target := filepath.Join(base, "real")
	newRepo(t, target, "")
	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(target, link))

	id, err := Resolve(link)
	require.NoError(t, err)
	require.Equal(t, Identity{Key: target, Root: target, Source: SourceGitRoot}, id)

	plain := filepath.Join(base, "plain")
	require.NoError(t, os.MkdirAll(plain, 0o755))
	plainLink := filepath.Join(base, "plain-link")
	require.NoError(t, os.Symlink(plain, plainLink))
	id, err = Resolve(plainLink)
	require.NoError(t, err)
	require.Equal(t, Identity{Key: plain, Root: plain, Source: SourcePath}, id)
}

func TestResolveErrors(t *testing.T) {
	t.Parallel()
	_, err := Resolve(filepath.Join(realTemp(t), "missing"))
	require.Error(t, err)

	bad := realTemp(t)
	writeFile(t, filepath.Join(bad, ".git"), "not a gitdir line\n")
	_, err = Resolve(bad)
	require.ErrorContains(t, err, "gitdir")

	broken := realTemp(t)
	newRepo(t, broken, "[remote \"origin\"\n\turl = x\n")
	_, err = Resolve(broken)
	require.ErrorContains(t, err, "unterminated section header")
}

func TestNormalizeRemote(t *testing.T) {
	t.Parallel()
	tok := strings.Repeat("t0K", 4) // synthetic, not a real credential
	cases := map[string]string{
		"git@github.com:Org/Repo.git":                         "github.com/Org/Repo",
		"GIT@GitHub.COM:Org/Repo.git/":                        "github.com/Org/Repo",
		"github.com:Org/Repo":                                 "github.com/Org/Repo",
		"https://user:" + tok + "@gitlab.example.com/a/b.git": "gitlab.example.com/a/b",
		"https://GitHub.com/Org/Repo/":                        "github.com/Org/Repo",
		"https://github.com:443/Org/Repo.git":                 "github.com/Org/Repo",
		"https://git.example.com:8443/team/x.git":             "git.example.com:8443/team/x",
		"http://git.example.com:80/team/x":                    "git.example.com/team/x",
		"ssh://git@github.com:2222/Org/Repo.git":              "github.com/Org/Repo",
		"git+ssh://git@github.com/Org/Repo.git":               "github.com/Org/Repo",
		"git://git.kernel.org/pub/scm/git/git.git":            "git.kernel.org/pub/scm/git/git",
		"file:///srv/git/project.git":                         "/srv/git/project",
		"git@github.com:acme/x.git?key=" + tok:                "github.com/acme/x",
		"git@github.com:acme/x#" + tok:                        "github.com/acme/x",
		"https://github.com/acme/x.git?private_token=" + tok:  "github.com/acme/x",
		"https://host/%zz?private_token=" + tok:               "host/%zz",
		"/srv/git/project.git":                                "/srv/git/project",
		"":                                                    "",
	}
	for in, want := range cases {
		require.Equal(t, want, NormalizeRemote(in), "input %q", in)
		require.NotContains(t, NormalizeRemote(in), tok)
	}
}

func TestParseGitConfig(t *testing.T) {
	t.Parallel()
	src := `# leading comment
; another
[Core]
	Bare = false ; trailing comment
	ignorecase
[remote "Origin"]  # header comment
	URL = "https://example.com/a b.git" # comment
[remote "with \"quote\""]
	url = one \
two
[branch.Main]
	merge = refs/heads/main
[section] key = inline
	spaced =   a   b   c  
	hash = "x#y" ; real comment
`
	entries, err := parseGitConfig(strings.NewReader(src))
	require.NoError(t, err)
	require.Equal(t, []configEntry{
		{section: "core", key: "bare", value: "false"},
		{section: "core", key: "ignorecase", value: "true"},
		{section: "remote", subsection: "Origin", key: "url", value: "https://example.com/a b.git"},
		{section: "remote", subsection: `with "quote"`, key: "url", value: "one two"},
		{section: "branch", subsection: "main", key: "merge", value: "refs/heads/main"},
		{section: "section", key: "key", value: "inline"},
		{section: "section", key: "spaced", value: "a b c"},
		{section: "section", key: "hash", value: "x#y"},
	}, entries)

	for _, bad := range []string{"key = outside\n", "[core\n", "[core]\n\tx = \"open\n", "[core]\n\tx = a\\q\n", "[]\n"} {
		_, err := parseGitConfig(strings.NewReader(bad))
		require.Error(t, err, "input %q", bad)
	}
}

func TestValidateKey(t *testing.T) {
	t.Parallel()
	require.NoError(t, ValidateKey("github.com/Org/Repo"))
	require.NoError(t, ValidateKey(strings.Repeat("a", MaxKeyBytes)))
	require.NoError(t, ValidateKey("/home/ünïcode/project"))

	err := ValidateKey("")
	require.ErrorContains(t, err, "project")
	err = ValidateKey(strings.Repeat("a", MaxKeyBytes+1))
	require.ErrorContains(t, err, "project")
	require.ErrorContains(t, err, "512")
	require.ErrorContains(t, ValidateKey("bad\xffutf8"), "UTF-8")
	require.ErrorContains(t, ValidateKey("tab\there"), "control character")
	require.ErrorContains(t, ValidateKey("nul\x00"), "control character")
	require.ErrorContains(t, ValidateKey("proj-one\u200b"), "invisible format characters")
	require.ErrorContains(t, ValidateKey("a\u202eb"), "U+202E")
	require.ErrorContains(t, ValidateKey("https://deploy:PW@github.com/acme/x"), "must not carry credentials")
	require.ErrorContains(t, ValidateKey("https://u:p@ss@host:x/y"), "must not carry credentials", "an unparsable URL is read by hand")
	require.NoError(t, ValidateKey("https://github.com/acme/x"))
	require.NoError(t, ValidateKey("team@example/notes"), "an @ outside a URL's authority is no userinfo")
}

func TestResolveBoundsDerivedKeys(t *testing.T) {
	t.Parallel()
	long := realTemp(t)
	remote := "https://example.com/" + strings.Repeat("segment/", 400) + "repo.git" // ~3 KB
	newRepo(t, long, "[remote \"origin\"]\n\turl = "+remote+"\n")
	id, err := Resolve(long)
	require.NoError(t, err)
	require.LessOrEqual(t, len(id.Key), MaxKeyBytes)
	require.NoError(t, ValidateKey(id.Key))
	require.True(t, strings.HasPrefix(id.Key, "example.com/segment/"))

	other := realTemp(t)
	newRepo(t, other, "[remote \"origin\"]\n\turl = "+strings.Replace(remote, "repo.git", "other.git", 1)+"\n")
	id2, err := Resolve(other)
	require.NoError(t, err)
	require.NotEqual(t, id.Key, id2.Key, "keys that share a long prefix stay distinct")

	again, err := Resolve(long)
	require.NoError(t, err)
	require.Equal(t, id.Key, again.Key, "stable")

	esc := realTemp(t)
	newRepo(t, esc, "[remote \"origin\"]\n\turl = https://example.com/a\x1b[31mb\n")
	id3, err := Resolve(esc)
	require.NoError(t, err)
	require.NoError(t, ValidateKey(id3.Key), "control characters never reach a key")
}
