package projectmap

import "time"

// FormatVersion is the version of the map's JSON form. Decode refuses newer versions; fields
// added within a version are optional, so an older reader ignores them.
const FormatVersion = 1

// Map describes one source tree. Paths in it are relative to the mapped directory, use "/"
// and never leave it; the directory's own absolute path is not recorded, so a map can travel
// to a host on another machine without revealing the local filesystem.
type Map struct {
	Format      int       `json:"format"`
	GeneratedAt time.Time `json:"generated_at"`
	// Fingerprint changes when HEAD or the tree's shallow shape changes (see Fingerprint);
	// callers compare it to decide whether a map is out of date before it is old.
	Fingerprint string `json:"fingerprint"`
	// Description is the first paragraph of the root README, cut to one sentence.
	Description string `json:"description,omitempty"`
	// Files is how many files were counted (vendored, output and ignored trees excluded).
	Files int `json:"files"`
	// Truncated lists why parts of the map are incomplete: TruncatedFiles, TruncatedTime or
	// TruncatedGit. Empty when the map is complete.
	Truncated   []string   `json:"truncated,omitempty"`
	Languages   []Language `json:"languages"`
	Tools       []Tool     `json:"tools"`
	Commands    []Command  `json:"commands"`
	Dirs        []Dir      `json:"dirs"`
	Modules     []Module   `json:"modules"`
	KeyFiles    []string   `json:"key_files"`
	EntryPoints []string   `json:"entry_points"`
	// Git is nil when git is absent or the directory is not inside a work tree.
	Git *Git `json:"git,omitempty"`
}

// Reasons a map is incomplete, as listed in Map.Truncated.
const (
	// TruncatedFiles means the listing stopped at Options.MaxFiles.
	TruncatedFiles = "max_files"
	// TruncatedTime means the listing stopped at its share of Options.Timeout.
	TruncatedTime = "time"
	// TruncatedGit means a git call ran out of time; the git section is partial.
	TruncatedGit = "git"
)

// Language is a programming language and how many counted files are written in it.
type Language struct {
	Name  string `json:"name"`
	Files int    `json:"files"`
}

// Tool is a framework, library or tool the project uses, with the marker file that shows it.
type Tool struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
}

// Tool kinds, in the order the summary lists them.
const (
	KindFramework      = "framework"
	KindLibrary        = "library"
	KindPackageManager = "package-manager"
	KindBuild          = "build"
	KindTest           = "test"
	KindLint           = "lint"
	KindContainer      = "container"
	KindCI             = "ci"
)

// Command is a way to build, test, lint or run the project that the project itself declares
// (a Makefile target, a package.json script, ...) or that its toolchain implies (go test ./...).
type Command struct {
	// Kind is one of the Cmd* constants.
	Kind string `json:"kind"`
	// Run is the command line, to be run in Dir.
	Run string `json:"run"`
	// Dir is where to run it, relative to the root; empty for the root.
	Dir string `json:"dir,omitempty"`
	// Description is the help text the project gives for it, if any.
	Description string `json:"description,omitempty"`
	// Source is the file the command was read from.
	Source string `json:"source"`
}

// Command kinds.
const (
	CmdBuild    = "build"
	CmdTest     = "test"
	CmdLint     = "lint"
	CmdFormat   = "format"
	CmdRun      = "run"
	CmdGenerate = "generate"
	CmdOther    = "other"
)

// Dir is a top-level directory.
type Dir struct {
	Path        string `json:"path"`
	Files       int    `json:"files"`
	Description string `json:"description,omitempty"`
}

// Module is a directory holding a package manifest (go.mod, package.json, Cargo.toml, ...) at
// the root or up to two levels below it.
type Module struct {
	Dir         string `json:"dir"`
	Ecosystem   string `json:"ecosystem"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Files       int    `json:"files"`
}

// Git is the repository's state and recent activity.
type Git struct {
	// Branch is empty on a detached HEAD.
	Branch string `json:"branch,omitempty"`
	// Head is nil in a repository without commits.
	Head   *Commit  `json:"head,omitempty"`
	Recent Activity `json:"recent"`
}

// Commit is one commit, by short hash.
type Commit struct {
	Hash    string    `json:"hash"`
	Subject string    `json:"subject"`
	Time    time.Time `json:"time"`
}

// Activity is what changed in the window before GeneratedAt.
type Activity struct {
	Since time.Time `json:"since"`
	// Commits counts the window's commits, up to the read limit (CommitsCapped then says so).
	Commits       int       `json:"commits"`
	CommitsCapped bool      `json:"commits_capped,omitempty"`
	Latest        []Commit  `json:"latest"`
	HotFiles      []HotFile `json:"hot_files"`
}

// HotFile is a file changed by several of the window's commits.
type HotFile struct {
	Path    string `json:"path"`
	Commits int    `json:"commits"`
}
