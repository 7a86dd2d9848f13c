package brain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// SourceInstructions is the source of a project's instruction files (CLAUDE.md, AGENTS.md, ...);
// a CLI's own memory files are the source "<cli>-memory".
const SourceInstructions = "instructions"

// maxImportFileBytes skips files no CLI would keep as memory (a generated dump, say).
const maxImportFileBytes = 1 << 20

// ImportRequest says where ReadCLIFiles looks. The file names and folders are the CLIs' own, as
// their provider plugins describe them (provider.Info); the brain knows no CLI.
type ImportRequest struct {
	// Dirs are the project's directories on this machine: the one import-cli was given and
	// its repository root. A CLI keys its memory by the directory it was started in.
	Dirs []string
	// InstructionFiles are the instruction files read from each of Dirs (CLAUDE.md, say).
	InstructionFiles []string
	// MemoryFolders are the CLIs' per-project memory folders.
	MemoryFolders []MemoryFolders
	// Home shortens the paths recorded as provenance (~/...).
	Home string
}

// MemoryFolders is one CLI's memory folders for this user: Dir/projects/<the project's path
// encoded (EncodeProjectFolder)>/Subdir/*.md, the encoded name cut at TruncateAt (0: never)
// and suffixed by the CLI, so every folder starting with the cut name is read.
type MemoryFolders struct {
	// CLI names the files' source, "<CLI>-memory".
	CLI        string
	Dir        string
	Subdir     string
	TruncateAt int
}

// ImportFileReport is what one file gave.
type ImportFileReport struct {
	Path   string `json:"path"`
	Source string `json:"source"`
	Read   int    `json:"read"`
	Added  int    `json:"added"`
	Folded int    `json:"folded"`
	// Skipped counts pieces the project already holds (an earlier import, or the same text in
	// another file): re-running an import adds nothing.
	Skipped int    `json:"skipped"`
	Error   string `json:"error,omitempty"`
}

// ImportReport is what an import did.
type ImportReport struct {
	Project string             `json:"project"`
	Files   []ImportFileReport `json:"files"`
	Read    int                `json:"read"`
	Added   int                `json:"added"`
	Folded  int                `json:"folded"`
	Skipped int                `json:"skipped"`
}

// importFile is one file found to import, or refused with the reason in refused.
type importFile struct {
	path, display, source string
	refused               string
}

// Why a link is not followed: a cloned repository (or a memory folder) must not pull a file from
// elsewhere on the machine (~/private.md, /etc/passwd) into memory.
const (
	refusedProjectLink = "is a link to a file outside the project; not imported"
	refusedMemoryLink  = "is a link to a file outside %s's memory folder; not imported"
)

// The limits of an import as the host takes it (ImportCLI).
const (
	// MaxImportBatchBytes bounds the text of the files one ImportBatch carries; the CLI sends
	// more in several (SplitImport).
	MaxImportBatchBytes = 4 << 20
	maxImportFiles      = 1000
	maxImportPathBytes  = 1024
)

// ImportFile is one file of an import as the CLI read it where the CLIs keep their memory:
// its path as recorded (~/... under the home directory), its source ("instructions", or
// "<cli>-memory") and its text, or why it was not read.
type ImportFile struct {
	Path   string `json:"path"`
	Source string `json:"source"`
	Text   string `json:"text,omitempty"`
	Error  string `json:"error,omitempty"`
}

// ImportBatch is what POST /api/v1/projects/{key}/import-cli carries: files the CLI read.
type ImportBatch struct {
	Files []ImportFile `json:"files"`
}

// ReadCLIFiles finds and reads the files req names, on the machine it runs on: the CLI's,
// where the agent CLIs keep their memory (the host may run elsewhere, and never reads a path
// a client names). A file that cannot be read, is too large or links out of where it was
// found carries the reason instead of its text. Files are only read.
func ReadCLIFiles(req ImportRequest) ImportBatch {
	batch := ImportBatch{Files: []ImportFile{}}
	for _, f := range findImportFiles(req) {
		file := ImportFile{Path: f.display, Source: f.source, Error: f.refused}
		switch {
		case rules.CheckLine("path", file.Path, maxImportPathBytes) != nil:
			// A name with a line break or an escape sequence cannot be a memory's source.
			file.Path = strings.ToValidUTF8(cut(rules.PrintableLine(file.Path), maxImportPathBytes), "")
			file.Error = "its path holds control or invisible characters; not imported"
		case f.refused == "":
			file.Text, file.Error = readImportFile(f.path)
		}
		batch.Files = append(batch.Files, file)
	}
	return batch
}

// cut is s's first n bytes at most.
func cut(s string, n int) string { return s[:min(len(s), n)] }

func readImportFile(path string) (text, problem string) {
	info, err := os.Stat(path)
	if err != nil {
		return "", "cannot read the file"
	}
	if info.Size() > maxImportFileBytes {
		return "", fmt.Sprintf("is %d bytes; files over %d bytes are not imported", info.Size(), maxImportFileBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "cannot read the file"
	}
	return string(data), ""
}

// SplitImport cuts b into batches of at most MaxImportBatchBytes of text each (a larger file
// travels alone), in order.
func SplitImport(b ImportBatch) []ImportBatch {
	var out []ImportBatch
	cur, size := ImportBatch{Files: []ImportFile{}}, 0
	for _, f := range b.Files {
		if len(cur.Files) > 0 && (size+len(f.Text) > MaxImportBatchBytes || len(cur.Files) == maxImportFiles) {
			out = append(out, cur)
			cur, size = ImportBatch{Files: []ImportFile{}}, 0
		}
		cur.Files = append(cur.Files, f)
		size += len(f.Text)
	}
	return append(out, cur)
}

// checkImport refuses a batch the CLI could not have read: every field is checked before
// anything is stored.
func checkImport(b ImportBatch) error {
	if len(b.Files) > maxImportFiles {
		return rules.Errf("files", "holds %d files; the limit is %d", len(b.Files), maxImportFiles)
	}
	for i, f := range b.Files {
		field := fmt.Sprintf("files[%d].", i)
		if f.Path == "" {
			return rules.Errf(field+"path", "must not be empty")
		}
		if err := rules.CheckLine(field+"path", f.Path, maxImportPathBytes); err != nil {
			return err
		}
		if f.Source != SourceInstructions && !memorySource.MatchString(f.Source) {
			return rules.Errf(field+"source", "must be %q or \"<cli>-memory\" (a CLI's name of letters, digits, '.', '_' and '-')", SourceInstructions)
		}
		if err := rules.CheckLine(field+"error", f.Error, rules.MaxReasonBytes); err != nil {
			return err
		}
		switch {
		case f.Error != "" && f.Text != "":
			return rules.Errf(field+"text", "must be empty when error says why the file was not read")
		case len(f.Text) > maxImportFileBytes:
			return rules.Errf(field+"text", "is %d bytes; files over %d bytes are not imported", len(f.Text), maxImportFileBytes)
		}
	}
	return nil
}

// memorySource is a CLI's memory files' source, "<cli>-memory".
var memorySource = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}-memory$`)

// ImportCLI imports the agent CLIs' file memory of one project, as ReadCLIFiles read it: each
// paragraph or list item one memory (splitMarkdown) whose provenance source is
// "import-cli:<path>". Pieces the project already holds are skipped and the rest go through the
// write path (so a paraphrase folds), which makes a second run add nothing. A batch with a bad
// field is refused whole.
func (s *Service) ImportCLI(ctx context.Context, a memory.Access, b ImportBatch) (ImportReport, error) {
	if err := check(a); err != nil {
		return ImportReport{}, err
	}
	if err := checkImport(b); err != nil {
		return ImportReport{}, err
	}
	rep := ImportReport{Project: a.Project, Files: []ImportFileReport{}}
	seen := importSeen{texts: map[string]bool{}, bodies: map[string]string{}}
	for _, f := range b.Files {
		fr := ImportFileReport{Path: f.Path, Source: f.Source, Error: f.Error}
		if f.Error != "" {
			rep.Files = append(rep.Files, fr)
			continue
		}
		if err := s.importFile(ctx, a, f, seen, &fr); err != nil {
			if ctx.Err() != nil {
				return rep, err
			}
			fr.Error = err.Error()
		}
		rep.Files = append(rep.Files, fr)
		rep.Read += fr.Read
		rep.Added += fr.Added
		rep.Folded += fr.Folded
		rep.Skipped += fr.Skipped
	}
	return rep, nil
}

// importSeen is what a run has imported so far.
type importSeen struct {
	texts  map[string]bool   // normalized texts
	bodies map[string]string // normalized texts less their heading path, by the file they came from
}

// has reports whether the run already holds a piece, and records it if not: the same text
// anywhere, or the same body in another file. CLAUDE.md and AGENTS.md often hold the same rule
// under different headings, and it is one memory; within one file the same words under two
// headings may be two rules.
func (s importSeen) has(text, body, file string) bool {
	if from, ok := s.bodies[body]; s.texts[text] || ok && from != file {
		return true
	}
	s.texts[text] = true
	if _, ok := s.bodies[body]; !ok {
		s.bodies[body] = file
	}
	return false
}

func (s *Service) importFile(ctx context.Context, a memory.Access, f ImportFile, seen importSeen, fr *ImportFileReport) error {
	fm, pieces := splitMarkdown(f.Text, s.mem.Config().MaxTextBytes)
	fr.Read = len(pieces)
	kind := importKind(f.Source, fm.Type)
	source := provenanceSource("import-cli:" + f.Path)
	// The texts as they would be stored (secrets redacted), to compare with what is stored.
	texts := make([]string, len(pieces))
	for i, p := range pieces {
		texts[i] = p.text
		s.mem.Redact(&texts[i])
	}
	known, err := s.st.KnownTexts(ctx, a.Project, texts)
	if err != nil {
		return err
	}
	for i, p := range pieces {
		body := p.body
		s.mem.Redact(&body)
		if known[texts[i]] || seen.has(store.NormalizeText(texts[i]), store.NormalizeText(body), f.Path) {
			fr.Skipped++
			continue
		}
		res, err := s.mem.Store(ctx, a, memory.StoreRequest{Text: p.text, Kind: kind, Agent: "import-cli", Source: source})
		if err != nil {
			return err
		}
		switch {
		case res.Exact:
			fr.Skipped++
		case res.Folded:
			fr.Folded++
		default:
			fr.Added++
		}
	}
	return nil
}

// importKind is the memory kind of a piece: Claude Code's memory types map onto memhost's
// kinds; instruction files hold conventions.
func importKind(source, typ string) string {
	switch typ {
	case "user", "feedback":
		return string(store.KindPreference)
	case "reference":
		return string(store.KindReference)
	case "project":
		return string(store.KindFact)
	}
	if source == SourceInstructions {
		return string(store.KindConvention)
	}
	return string(store.KindFact)
}

// provenanceSource keeps a source label within the provenance limit, keeping its end (the
// file name) when the path is long.
func provenanceSource(s string) string {
	if len(s) <= rules.MaxProvenanceBytes {
		return s
	}
	tail := s[len(s)-(rules.MaxProvenanceBytes-len("import-cli:…")):]
	for len(tail) > 0 && tail[0]&0xC0 == 0x80 {
		tail = tail[1:]
	}
	return "import-cli:…" + tail
}

// findImportFiles lists the files to import, in a stable order, each once. A file is followed
// through links only as far as it stays where it was found: an instruction file inside one of
// the project's directories, a memory file inside its memory folder; one that leads elsewhere
// is listed as refused.
func findImportFiles(req ImportRequest) []importFile {
	var out []importFile
	seen := map[string]bool{}
	add := func(path, source string, roots []string, refused string) {
		real, err := filepath.EvalSymlinks(path)
		if err != nil || seen[real] {
			return
		}
		if info, err := os.Stat(real); err != nil || !info.Mode().IsRegular() {
			return
		}
		f := importFile{path: real, display: displayPath(path, req.Home), source: source}
		if !slices.ContainsFunc(roots, func(root string) bool { return within(real, root) }) {
			// Not marked seen: the file the link names may be imported where it belongs.
			f.path, f.refused = "", refused
		} else {
			seen[real] = true
		}
		out = append(out, f)
	}
	for _, m := range req.MemoryFolders {
		for _, dir := range req.Dirs {
			for _, folder := range projectFolders(m, dir) {
				mem := filepath.Join(folder, m.Subdir)
				files, _ := filepath.Glob(filepath.Join(mem, "*.md"))
				slices.Sort(files)
				roots := resolved([]string{mem})
				for _, f := range files {
					add(f, m.CLI+"-memory", roots, fmt.Sprintf(refusedMemoryLink, m.CLI))
				}
			}
		}
	}
	roots := resolved(req.Dirs)
	for _, dir := range req.Dirs {
		for _, name := range req.InstructionFiles {
			add(filepath.Join(dir, name), SourceInstructions, roots, refusedProjectLink)
		}
	}
	return out
}

// resolved is dirs with their links resolved, as EvalSymlinks resolves a file in them (a home
// under /home -> /data/home, say); a directory that cannot be resolved holds nothing.
func resolved(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			out = append(out, real)
		}
	}
	return out
}

// within reports whether the resolved path lies under the resolved directory root.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// projectFolders finds a CLI's per-project folders for dir: the encoded path, or, past
// TruncateAt characters, the folders starting with its cut (the CLI appends a suffix, a hash
// Claude Code does not document).
func projectFolders(m MemoryFolders, dir string) []string {
	if m.Dir == "" {
		return nil
	}
	enc := EncodeProjectFolder(dir)
	root := filepath.Join(m.Dir, "projects")
	if m.TruncateAt <= 0 || len(enc) <= m.TruncateAt {
		return []string{filepath.Join(root, enc)}
	}
	matches, _ := filepath.Glob(filepath.Join(root, globEscape(enc[:m.TruncateAt])+"*"))
	slices.Sort(matches)
	return matches
}

// EncodeProjectFolder is a project folder's name in a CLI's memory (Claude Code's layout): the
// absolute path with every character that is not an ASCII letter or digit replaced by '-'.
func EncodeProjectFolder(dir string) string {
	var b strings.Builder
	for _, r := range dir {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}

// displayPath shortens a path under home to ~/..., and a long path to a hash and its tail.
func displayPath(path, home string) string {
	if home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && !strings.HasPrefix(rel, "..") {
			path = filepath.Join("~", rel)
		}
	}
	if len(path) > 400 {
		sum := sha256.Sum256([]byte(path))
		path = hex.EncodeToString(sum[:4]) + "…" + path[len(path)-300:]
	}
	return path
}
