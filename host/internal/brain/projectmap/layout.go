package projectmap

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// keyFileNames are root files an agent reads first: what the project is, how to work in it,
// how it is built.
var keyFileNames = map[string]bool{
	"README.md": true, "README": true, "README.rst": true, "README.txt": true, "AGENTS.md": true,
	"CLAUDE.md": true, "GEMINI.md": true, "CONTRIBUTING.md": true, "ARCHITECTURE.md": true, "DESIGN.md": true,
	"Makefile": true, "GNUmakefile": true, "justfile": true, "Justfile": true, "Taskfile.yml": true,
	"Taskfile.yaml": true, "Dockerfile": true, "docker-compose.yml": true, "docker-compose.yaml": true,
	"compose.yml": true, "compose.yaml": true, "go.work": true, "go.mod": true, "package.json": true,
	"pnpm-workspace.yaml": true, "Cargo.toml": true, "pyproject.toml": true, "setup.py": true,
	"requirements.txt": true, "Gemfile": true, "pom.xml": true, "build.gradle": true, "build.gradle.kts": true,
	"composer.json": true, "CMakeLists.txt": true, "tsconfig.json": true, "manage.py": true, "deno.json": true,
	".env.example": true, "flake.nix": true,
}

// entryNames are files that start a program wherever they sit in a module.
var entryNames = map[string]bool{
	"main.go": true, "main.rs": true, "lib.rs": true, "manage.py": true, "__main__.py": true,
	"wsgi.py": true, "asgi.py": true, "app.py": true, "main.py": true, "Program.cs": true,
	"index.ts": true, "index.tsx": true, "index.js": true, "index.mjs": true, "main.ts": true,
	"main.tsx": true, "main.js": true, "server.ts": true, "server.js": true,
}

// maxEntryDepth is the deepest an entry point sits (host/cmd/memhost/main.go is 4).
const maxEntryDepth = 4

// isEntryPoint reports a file that starts a program: main.go near the top or under cmd/, src/main.rs, src/index.ts, manage.py and their kind, outside tests and examples.
func isEntryPoint(rel string, depth int) bool {
	if depth > maxEntryDepth {
		return false
	}
	dir, base := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if !entryNames[base] || isTestdata(dir) {
		return false
	}
	parent := path.Base(dir)
	switch base {
	case "main.go":
		return depth <= 3 || path.Base(path.Dir(dir)) == "cmd"
	case "main.rs", "lib.rs":
		return parent == "src"
	case "index.ts", "index.tsx", "index.js", "index.mjs", "main.ts", "main.tsx", "main.js", "server.ts", "server.js":
		return parent == "src" || depth <= 2
	case "__main__.py":
		return true
	}
	return depth <= 2
}

// layout fills the map's dirs, modules, key files and entry points.
func (b *builder) layout(m *Map, s *scan, a *analysis) {
	for name := range keyFileNames {
		if s.has(name) {
			m.KeyFiles = append(m.KeyFiles, name)
		}
	}
	slices.Sort(m.KeyFiles)
	m.KeyFiles = m.KeyFiles[:min(len(m.KeyFiles), MaxKeyFiles)]
	if readme := b.readmeIn(s, ""); readme != "" {
		m.Description = readme
	}

	var tops []string
	for dir := range s.dirFiles {
		if !strings.Contains(dir, "/") {
			tops = append(tops, dir)
		}
	}
	// Keep the biggest directories when there are too many, then list them by name.
	slices.SortFunc(tops, func(x, y string) int { return cmp.Or(cmp.Compare(s.dirFiles[y], s.dirFiles[x]), cmp.Compare(x, y)) })
	tops = tops[:min(len(tops), MaxDirs)]
	slices.Sort(tops)
	for _, dir := range tops {
		m.Dirs = append(m.Dirs, Dir{Path: dir, Files: s.dirFiles[dir], Description: b.describeDir(s, a, dir)})
	}

	slices.SortFunc(a.modules, func(x, y Module) int {
		return cmp.Or(byDepthThenPathDir(x.Dir, y.Dir), cmp.Compare(x.Ecosystem, y.Ecosystem))
	})
	for _, mod := range a.modules[:min(len(a.modules), MaxModules)] {
		if mod.Description == "" {
			mod.Description = b.describeDir(s, a, mod.Dir)
		}
		m.Modules = append(m.Modules, mod)
	}

	slices.SortFunc(s.entries, byDepthThenPath)
	m.EntryPoints = append(m.EntryPoints, s.entries[:min(len(s.entries), MaxEntryPoints)]...)
}

// describeDir says what a directory is: its manifest's description, its Go package comment,
// or its README's first sentence. The root's README is the map's own description instead.
func (b *builder) describeDir(s *scan, a *analysis, dir string) string {
	if d := a.descriptions[dir]; d != "" {
		return d
	}
	if dir == "" {
		return ""
	}
	if s.has(join(dir, "doc.go")) {
		if data, err := b.readHead(join(dir, "doc.go"), maxProseBytes); err == nil {
			if d := docGoDescription(data); d != "" {
				return d
			}
		}
	}
	return b.readmeIn(s, dir)
}

// readmeIn is the first sentence of the README in dir, if there is one.
func (b *builder) readmeIn(s *scan, dir string) string {
	for _, name := range []string{"README.md", "readme.md", "README.markdown", "README", "README.txt", "README.rst"} {
		if !s.has(join(dir, name)) {
			continue
		}
		if data, err := b.readHead(join(dir, name), maxProseBytes); err == nil {
			return readmeDescription(data)
		}
	}
	return ""
}
