package projectmap

import (
	"path"
	"strings"

	"github.com/memhost/memhost/host/internal/core/rules"
)

// shallowDepth is how many path segments a file may have and still be looked up by name:
// markers and manifests are read at the root and up to two directory levels below it.
const shallowDepth = 3

// maxEntryCandidates bounds the entry points remembered before the shallowest are kept.
const maxEntryCandidates = 1024

// scan accumulates what the listing shows, one path at a time, in memory proportional to the
// shallow part of the tree only: a deep tree costs counts, not a path list.
type scan struct {
	files     int
	languages map[string]int
	// dirFiles counts files under each directory of depth one and two ("a", "a/b").
	dirFiles map[string]int
	// shallow holds the paths of at most shallowDepth segments.
	shallow map[string]bool
	entries []string
}

func newScan() *scan {
	return &scan{languages: map[string]int{}, dirFiles: map[string]int{}, shallow: map[string]bool{}}
}

// add counts one file, given as a slash path relative to the root.
func (s *scan) add(rel string) {
	if !mappable(rel) {
		return
	}
	s.files++
	first, rest, nested := strings.Cut(rel, "/")
	depth := 1
	if nested {
		s.dirFiles[first]++
		depth = 2
		if second, _, deeper := strings.Cut(rest, "/"); deeper {
			s.dirFiles[first+"/"+second]++
			depth = 2 + strings.Count(rest, "/")
		}
	}
	if depth <= shallowDepth {
		s.shallow[rel] = true
	}
	if lang := languageOf(rel); lang != "" {
		s.languages[lang]++
	}
	if len(s.entries) < maxEntryCandidates && isEntryPoint(rel, depth) {
		s.entries = append(s.entries, rel)
	}
}

// mappable reports whether rel can be named in a map. A path that breaks the rule for map
// texts (rules.CheckLine: over MaxPathBytes, or holding a line break or another control
// character, which a file name may hold) is left out of the map, counts included, as if it
// were not there: the banner shows paths inside its own lines.
func mappable(rel string) bool {
	return rel != "" && rules.CheckLine("path", rel, MaxPathBytes) == nil
}

// has reports whether the shallow file rel was listed.
func (s *scan) has(rel string) bool { return s.shallow[rel] }

// filesUnder counts the files under dir ("" for the root).
func (s *scan) filesUnder(dir string) int {
	if dir == "" {
		return s.files
	}
	return s.dirFiles[dir]
}

// join is path.Join for the map's relative paths, where "" is the root.
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return path.Join(dir, name)
}
