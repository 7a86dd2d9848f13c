package brain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
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

// ImportRequest says where to look. The file names and folders are the CLIs' own, as their
// provider plugins describe them (provider.Info); the brain knows no CLI.
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

// ImportCLI imports the agent CLIs' file memory of one project: the CLIs' memory files and the
// project's instruction files, each paragraph or list item one memory (splitMarkdown)
// whose provenance source is "import-cli:<path>". Pieces the project already holds are skipped
// and the rest go through the write path (so a paraphrase folds), which makes a second run add
// nothing. Files are only read.
func (s *Service) ImportCLI(ctx context.Context, a memory.Access, req ImportRequest) (ImportReport, error) {
	if err := check(a); err != nil {
		return ImportReport{}, err
	}
	rep := ImportReport{Project: a.Project, Files: []ImportFileReport{}}
	seen := importSeen{texts: map[string]bool{}, bodies: map[string]string{}}
	for _, f := range findImportFiles(req) {
		fr := ImportFileReport{Path: f.display, Source: f.source, Error: f.refused}
		if f.refused != "" {
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

func (s *Service) importFile(ctx context.Context, a memory.Access, f importFile, seen importSeen, fr *ImportFileReport) error {
	info, err := os.Stat(f.path)
	if err != nil {
		return fmt.Errorf("cannot read the file")
	}
	if info.Size() > maxImportFileBytes {
		return fmt.Errorf("is %d bytes; files over %d bytes are not imported", info.Size(), maxImportFileBytes)
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return fmt.Errorf("cannot read the file")
	}
	fm, pieces := splitMarkdown(string(data), s.mem.Config().MaxTextBytes)
	fr.Read = len(pieces)
	kind := importKind(f.source, fm.Type)
	source := provenanceSource("import-cli:" + f.display)
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
		if known[texts[i]] || seen.has(store.NormalizeText(texts[i]), store.NormalizeText(body), f.display) {
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
