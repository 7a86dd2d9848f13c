package projectmap

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"
)

// analysis collects what the marker files and manifests say.
type analysis struct {
	tools    []Tool
	commands []rankedCommand
	modules  []Module
	// descriptions holds what a manifest says a directory is, for the layout.
	descriptions map[string]string
}

// rankedCommand orders commands: by directory (root first), then by source (task runners the
// project wrote before the toolchain's defaults), then as written.
type rankedCommand struct {
	Command
	rank, seq int
}

// Command sources' ranks.
const (
	rankMake = iota
	rankJust
	rankTask
	rankScripts
	rankToolchain
)

// marker reads one file found at the root or up to two levels below it.
type marker func(b *builder, a *analysis, dir, file string)

// markers are keyed by file name. Each one is cheap and never fails the map: a file it
// cannot read or parse contributes nothing.
var markers = map[string]marker{
	"Makefile": readMakefile, "makefile": readMakefile, "GNUmakefile": readMakefile,
	"justfile": readJustfile, "Justfile": readJustfile, ".justfile": readJustfile,
	"Taskfile.yml": readTaskfile, "Taskfile.yaml": readTaskfile,
	"package.json": readPackageJSON,
	"go.mod":       readGoMod, "go.work": readGoWork,
	"Cargo.toml":     readCargo,
	"pyproject.toml": readPyproject, "setup.py": readSetupPy, "setup.cfg": readSetupPy,
	"requirements.txt": readRequirements, "manage.py": readManagePy,
	"Gemfile": readGemfile, "pom.xml": readMaven, "build.gradle": readGradle, "build.gradle.kts": readGradle,
	"composer.json": readComposer, "CMakeLists.txt": readCMake,
}

// simpleMarkers are files whose presence alone names a tool.
var simpleMarkers = map[string]Tool{
	"Dockerfile":              {Name: "Docker", Kind: KindContainer},
	"docker-compose.yml":      {Name: "Docker Compose", Kind: KindContainer},
	"docker-compose.yaml":     {Name: "Docker Compose", Kind: KindContainer},
	"compose.yml":             {Name: "Docker Compose", Kind: KindContainer},
	"compose.yaml":            {Name: "Docker Compose", Kind: KindContainer},
	".gitlab-ci.yml":          {Name: "GitLab CI", Kind: KindCI},
	"Jenkinsfile":             {Name: "Jenkins", Kind: KindCI},
	"azure-pipelines.yml":     {Name: "Azure Pipelines", Kind: KindCI},
	".travis.yml":             {Name: "Travis CI", Kind: KindCI},
	".golangci.yml":           {Name: "golangci-lint", Kind: KindLint},
	".golangci.yaml":          {Name: "golangci-lint", Kind: KindLint},
	".golangci.toml":          {Name: "golangci-lint", Kind: KindLint},
	".pre-commit-config.yaml": {Name: "pre-commit", Kind: KindLint},
	"eslint.config.js":        {Name: "ESLint", Kind: KindLint},
	"eslint.config.mjs":       {Name: "ESLint", Kind: KindLint},
	".eslintrc.json":          {Name: "ESLint", Kind: KindLint},
	".eslintrc.js":            {Name: "ESLint", Kind: KindLint},
	".eslintrc.cjs":           {Name: "ESLint", Kind: KindLint},
	".prettierrc":             {Name: "Prettier", Kind: KindLint},
	"biome.json":              {Name: "Biome", Kind: KindLint},
	"tox.ini":                 {Name: "tox", Kind: KindTest},
	"pytest.ini":              {Name: "pytest", Kind: KindTest},
	"conftest.py":             {Name: "pytest", Kind: KindTest},
	"buf.yaml":                {Name: "Buf", Kind: KindBuild},
	"flake.nix":               {Name: "Nix", Kind: KindBuild},
	"turbo.json":              {Name: "Turborepo", Kind: KindBuild},
	"nx.json":                 {Name: "Nx", Kind: KindBuild},
	"lerna.json":              {Name: "Lerna", Kind: KindBuild},
	"pnpm-workspace.yaml":     {Name: "pnpm workspaces", Kind: KindPackageManager},
	"Rakefile":                {Name: "Rake", Kind: KindBuild},
	"deno.json":               {Name: "Deno", Kind: KindBuild},
	".woodpecker.yml":         {Name: "Woodpecker CI", Kind: KindCI},
	"bitbucket-pipelines.yml": {Name: "Bitbucket Pipelines", Kind: KindCI},
}

// pathMarkers are files at a fixed place whose presence names a tool.
var pathMarkers = map[string]Tool{
	".circleci/config.yml":    {Name: "CircleCI", Kind: KindCI},
	".buildkite/pipeline.yml": {Name: "Buildkite", Kind: KindCI},
}

// analyse reads the markers among the shallow files, shallowest first, so the root's word
// comes before a subproject's wherever the map keeps only one.
func (b *builder) analyse(ctx context.Context, s *scan) *analysis {
	a := &analysis{descriptions: map[string]string{}}
	var paths []string
	for p := range s.shallow {
		if isMarker(p) {
			paths = append(paths, p)
		}
	}
	slices.SortFunc(paths, byDepthThenPath)
	manifests := 0
	for _, p := range paths {
		dir, file := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		if t, ok := simpleMarkers[file]; ok && !isTestdata(dir) {
			a.addTool(t.Name, t.Kind, p)
		}
		if t, ok := pathMarkers[p]; ok {
			a.addTool(t.Name, t.Kind, p)
		}
		if strings.HasPrefix(p, ".github/workflows/") && (strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")) {
			a.addTool("GitHub Actions", KindCI, ".github/workflows")
		}
		if strings.HasPrefix(file, "Dockerfile.") || strings.HasSuffix(file, ".Dockerfile") {
			a.addTool("Docker", KindContainer, p)
		}
		read, ok := markers[file]
		if !ok || isTestdata(dir) || manifests >= maxManifests || ctx.Err() != nil {
			continue
		}
		manifests++
		read(b, a, dir, p)
	}
	return a
}

// isMarker reports a path analyse has something to say about.
func isMarker(p string) bool {
	file := path.Base(p)
	_, simple := simpleMarkers[file]
	_, read := markers[file]
	_, fixed := pathMarkers[p]
	return simple || read || fixed || strings.HasPrefix(p, ".github/workflows/") ||
		strings.HasPrefix(file, "Dockerfile.") || strings.HasSuffix(file, ".Dockerfile")
}

// maxManifests bounds how many manifests one map reads (shallowest first).
const maxManifests = 96

// isTestdata reports a directory holding fixtures rather than the project's own code.
func isTestdata(dir string) bool {
	for seg := range strings.SplitSeq(dir, "/") {
		switch seg {
		case "testdata", "fixtures", "examples", "example", "test", "tests", "__tests__", "samples":
			return true
		}
	}
	return false
}

func byDepthThenPath(a, b string) int {
	return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), cmp.Compare(a, b))
}

// addTool records a tool once, with the first (shallowest) file that showed it.
func (a *analysis) addTool(name, kind, source string) {
	for _, t := range a.tools {
		if t.Name == name {
			return
		}
	}
	a.tools = append(a.tools, Tool{Name: clip(name, MaxTextBytes), Kind: kind, Source: source})
}

// addCommand records a command once per directory.
func (a *analysis) addCommand(rank int, c Command) {
	c.Run = clip(c.Run, MaxRunBytes)
	c.Description = clip(c.Description, MaxTextBytes)
	for _, have := range a.commands {
		if have.Dir == c.Dir && have.Run == c.Run {
			return
		}
	}
	a.commands = append(a.commands, rankedCommand{Command: c, rank: rank, seq: len(a.commands)})
}

// addModule records a manifest's directory as a module.
func (a *analysis) addModule(s *scan, dir, ecosystem, name, description string) {
	for _, m := range a.modules {
		if m.Dir == dir && m.Ecosystem == ecosystem {
			return
		}
	}
	description = clip(strings.TrimSpace(description), MaxTextBytes)
	a.modules = append(a.modules, Module{
		Dir: dir, Ecosystem: ecosystem, Name: clip(name, MaxTextBytes), Description: description, Files: s.filesUnder(dir),
	})
	if description != "" && a.descriptions[dir] == "" {
		a.descriptions[dir] = description
	}
}

// detect adds the tools whose dependency names appear in deps. Keys are dependency names
// or, ending in "/", prefixes of them.
func (a *analysis) detect(table map[string]Tool, deps []string, source string) {
	var found []Tool
	for _, dep := range deps {
		dep = strings.ToLower(strings.TrimSpace(dep))
		if t, ok := table[dep]; ok {
			found = append(found, t)
			continue
		}
		for key, t := range table {
			if strings.HasSuffix(key, "/") && strings.HasPrefix(dep, key) {
				found = append(found, t)
			}
		}
	}
	// Map iteration above is unordered; the order tools are found in must not be.
	slices.SortFunc(found, func(x, y Tool) int { return cmp.Compare(x.Name, y.Name) })
	for _, t := range found {
		a.addTool(t.Name, t.Kind, source)
	}
}

// sortedCommands orders the commands and keeps MaxCommands.
func (a *analysis) sortedCommands() []Command {
	slices.SortStableFunc(a.commands, func(x, y rankedCommand) int {
		return cmp.Or(byDepthThenPathDir(x.Dir, y.Dir), cmp.Compare(x.rank, y.rank), cmp.Compare(x.seq, y.seq))
	})
	out := make([]Command, 0, min(len(a.commands), MaxCommands))
	for _, c := range a.commands[:min(len(a.commands), MaxCommands)] {
		out = append(out, c.Command)
	}
	return out
}

// byDepthThenPathDir orders directories with the root ("") first.
func byDepthThenPathDir(a, b string) int {
	if a == b {
		return 0
	}
	if a == "" || b == "" {
		return cmp.Compare(len(a), len(b))
	}
	return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), cmp.Compare(a, b))
}

// kindOrder is the summary's order of tool kinds.
var kindOrder = map[string]int{
	KindFramework: 0, KindLibrary: 1, KindPackageManager: 2, KindBuild: 3, KindTest: 4, KindLint: 5, KindContainer: 6, KindCI: 7,
}

// sortedTools orders tools by kind, then name, and keeps MaxTools.
func (a *analysis) sortedTools() []Tool {
	out := append([]Tool{}, a.tools...)
	slices.SortFunc(out, func(x, y Tool) int {
		return cmp.Or(cmp.Compare(kindOrder[x.Kind], kindOrder[y.Kind]), cmp.Compare(x.Name, y.Name))
	})
	return out[:min(len(out), MaxTools)]
}

// classify guesses a command's kind from its name ("test:unit", "lint-go", "build").
func classify(name string) string {
	tokens := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return r == '-' || r == '_' || r == ':' || r == '.' || r == '/' || r == ' '
	})
	has := func(words ...string) bool {
		for _, t := range tokens {
			for _, w := range words {
				if strings.Contains(t, w) {
					return true
				}
			}
		}
		return false
	}
	is := func(words ...string) bool {
		for _, t := range tokens {
			if slices.Contains(words, t) {
				return true
			}
		}
		return false
	}
	switch {
	case has("lint", "check", "clippy", "breaking", "staticcheck") || is("vet", "tsc"):
		return CmdLint
	case has("format", "prettier") || is("fmt"):
		return CmdFormat
	case has("test", "spec", "cover") || is("e2e", "bench"):
		return CmdTest
	case has("build", "compile", "bundle") || is("all", "dist", "package"):
		return CmdBuild
	case is("run", "dev", "serve", "start", "watch", "up", "preview"):
		return CmdRun
	case has("generate", "codegen") || is("gen", "proto"):
		return CmdGenerate
	}
	return CmdOther
}
