package projectmap

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// languageByExt names the programming languages the map counts. Data, config and prose
// (JSON, YAML, Markdown) are left out: they say little about how a project is built.
var languageByExt = map[string]string{
	".go": "Go", ".rs": "Rust", ".py": "Python", ".pyi": "Python", ".rb": "Ruby",
	".ts": "TypeScript", ".tsx": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript",
	".js": "JavaScript", ".jsx": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript",
	".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin", ".scala": "Scala", ".groovy": "Groovy",
	".swift": "Swift", ".m": "Objective-C", ".mm": "Objective-C",
	".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".hpp": "C++", ".hh": "C++",
	".cs": "C#", ".fs": "F#", ".vb": "Visual Basic", ".php": "PHP", ".pl": "Perl", ".pm": "Perl",
	".sh": "Shell", ".bash": "Shell", ".zsh": "Shell", ".ps1": "PowerShell",
	".sql": "SQL", ".proto": "Protocol Buffers", ".graphql": "GraphQL",
	".html": "HTML", ".css": "CSS", ".scss": "CSS", ".sass": "CSS", ".less": "CSS",
	".vue": "Vue", ".svelte": "Svelte", ".astro": "Astro",
	".dart": "Dart", ".ex": "Elixir", ".exs": "Elixir", ".erl": "Erlang", ".hs": "Haskell",
	".clj": "Clojure", ".cljs": "Clojure", ".ml": "OCaml", ".lua": "Lua", ".r": "R", ".jl": "Julia",
	".zig": "Zig", ".nim": "Nim", ".tf": "HCL", ".hcl": "HCL", ".sol": "Solidity",
}

// generatedSuffixes mark files a generator wrote; they would inflate their language's count.
// Detected by name so they are never opened (a "Code generated ... DO NOT EDIT" header costs
// a read per file).
var generatedSuffixes = []string{
	".pb.go", ".pb.gw.go", "_grpc.pb.go", "_gen.go", "_generated.go", ".gen.go", "_string.go",
	"_pb2.py", "_pb2_grpc.py", ".min.js", ".min.css", ".bundle.js", ".d.ts", ".g.dart", ".freezed.dart",
}

// languageOf is the language of a file by its name, or "".
func languageOf(rel string) string {
	base := path.Base(rel)
	lang := languageByExt[strings.ToLower(path.Ext(base))]
	if lang == "" {
		return ""
	}
	for _, suffix := range generatedSuffixes {
		if strings.HasSuffix(base, suffix) {
			return ""
		}
	}
	if strings.HasPrefix(base, "zz_generated") {
		return ""
	}
	return lang
}

// topLanguages orders languages by file count (then name, for ties) and keeps n.
func topLanguages(counts map[string]int, n int) []Language {
	out := make([]Language, 0, len(counts))
	for name, files := range counts {
		out = append(out, Language{Name: name, Files: files})
	}
	slices.SortFunc(out, func(a, b Language) int {
		return cmp.Or(cmp.Compare(b.Files, a.Files), cmp.Compare(a.Name, b.Name))
	})
	return out[:min(n, len(out))]
}
