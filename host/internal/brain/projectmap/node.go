package projectmap

import (
	"encoding/json"
	"maps"
	"path"
	"slices"
	"strings"
)

// nodeTools maps npm dependency names (or "scope/" prefixes) to what they show.
var nodeTools = map[string]Tool{
	"react": {Name: "React", Kind: KindFramework}, "next": {Name: "Next.js", Kind: KindFramework},
	"vue": {Name: "Vue", Kind: KindFramework}, "nuxt": {Name: "Nuxt", Kind: KindFramework},
	"svelte": {Name: "Svelte", Kind: KindFramework}, "@sveltejs/kit": {Name: "SvelteKit", Kind: KindFramework},
	"@angular/core": {Name: "Angular", Kind: KindFramework}, "solid-js": {Name: "Solid", Kind: KindFramework},
	"astro": {Name: "Astro", Kind: KindFramework}, "@remix-run/": {Name: "Remix", Kind: KindFramework},
	"express": {Name: "Express", Kind: KindFramework}, "fastify": {Name: "Fastify", Kind: KindFramework},
	"koa": {Name: "Koa", Kind: KindFramework}, "@nestjs/core": {Name: "NestJS", Kind: KindFramework},
	"hono": {Name: "Hono", Kind: KindFramework}, "electron": {Name: "Electron", Kind: KindFramework},
	"react-native": {Name: "React Native", Kind: KindFramework}, "expo": {Name: "Expo", Kind: KindFramework},
	"typescript": {Name: "TypeScript", Kind: KindBuild}, "vite": {Name: "Vite", Kind: KindBuild},
	"webpack": {Name: "webpack", Kind: KindBuild}, "esbuild": {Name: "esbuild", Kind: KindBuild},
	"tailwindcss": {Name: "Tailwind CSS", Kind: KindLibrary}, "prisma": {Name: "Prisma", Kind: KindLibrary},
	"@prisma/client": {Name: "Prisma", Kind: KindLibrary}, "drizzle-orm": {Name: "Drizzle", Kind: KindLibrary},
	"jest": {Name: "Jest", Kind: KindTest}, "vitest": {Name: "Vitest", Kind: KindTest},
	"mocha": {Name: "Mocha", Kind: KindTest}, "@playwright/test": {Name: "Playwright", Kind: KindTest},
	"cypress": {Name: "Cypress", Kind: KindTest}, "eslint": {Name: "ESLint", Kind: KindLint},
	"prettier": {Name: "Prettier", Kind: KindLint}, "@biomejs/biome": {Name: "Biome", Kind: KindLint},
}

// lifecycleScripts run on their own (npm install runs them); an agent does not call them.
var lifecycleScripts = map[string]bool{
	"preinstall": true, "install": true, "postinstall": true, "prepare": true, "prepublish": true,
	"prepublishOnly": true, "prepack": true, "postpack": true, "preversion": true, "version": true, "postversion": true,
}

// readPackageJSON reads a package's name, description, dependencies and scripts. Scripts
// become commands through the package manager the lockfiles (or "packageManager") name.
func readPackageJSON(b *builder, a *analysis, dir, file string) {
	var pkg struct {
		Name            string          `json:"name"`
		Description     string          `json:"description"`
		PackageManager  string          `json:"packageManager"`
		Scripts         map[string]any  `json:"scripts"`
		Dependencies    map[string]any  `json:"dependencies"`
		DevDependencies map[string]any  `json:"devDependencies"`
		PeerDeps        map[string]any  `json:"peerDependencies"`
		Workspaces      json.RawMessage `json:"workspaces"`
	}
	if !b.readJSON(file, &pkg) {
		return
	}
	a.addModule(b.scan, dir, "node", pkg.Name, pkg.Description)
	pm := b.nodePackageManager(dir, pkg.PackageManager)
	a.addTool(pm, KindPackageManager, b.packageManagerSource(dir, pm, file))
	if len(pkg.Workspaces) > 0 {
		a.addTool(pm+" workspaces", KindPackageManager, file)
	}
	var deps []string
	for _, m := range []map[string]any{pkg.Dependencies, pkg.DevDependencies, pkg.PeerDeps} {
		deps = append(deps, slices.Collect(maps.Keys(m))...)
	}
	slices.Sort(deps)
	a.detect(nodeTools, deps, file)
	names := slices.Sorted(maps.Keys(pkg.Scripts))
	added := 0
	for _, name := range names {
		body, ok := pkg.Scripts[name].(string)
		if !ok || lifecycleScripts[name] || added >= maxTargetsPerFile || isHook(name, pkg.Scripts) {
			continue
		}
		a.addCommand(rankScripts, Command{Kind: classify(name), Run: runScript(pm, name), Dir: dir, Description: body, Source: file})
		added++
	}
}

// isHook reports a pre/post script of another script: npm runs it with that script.
func isHook(name string, scripts map[string]any) bool {
	for _, prefix := range []string{"pre", "post"} {
		if base, ok := strings.CutPrefix(name, prefix); ok {
			if _, exists := scripts[base]; exists {
				return true
			}
		}
	}
	return false
}

// runScript is how a package manager runs a script: `pnpm test`, `npm run build`.
func runScript(pm, name string) string {
	switch {
	case pm == "yarn" || (pm == "pnpm" && (name == "test" || name == "start")):
		return pm + " " + name
	case pm == "npm" && (name == "test" || name == "start"):
		return "npm " + name
	}
	return pm + " run " + name
}

// lockfiles name a package manager by its lockfile, most specific first.
var lockfiles = []struct{ file, pm string }{
	{"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"}, {"bun.lockb", "bun"}, {"bun.lock", "bun"}, {"package-lock.json", "npm"},
}

// nodePackageManager is the package's "packageManager" field, else the lockfile beside it,
// else the root's (workspaces keep one lockfile at the root), else npm.
func (b *builder) nodePackageManager(dir, declared string) string {
	if name, _, _ := strings.Cut(declared, "@"); name != "" {
		for _, l := range lockfiles {
			if l.pm == name {
				return name
			}
		}
	}
	for _, d := range ancestors(dir) {
		for _, l := range lockfiles {
			if b.scan.has(join(d, l.file)) {
				return l.pm
			}
		}
	}
	return "npm"
}

// packageManagerSource is the lockfile that named the package manager, or the manifest.
func (b *builder) packageManagerSource(dir, pm, manifest string) string {
	for _, d := range ancestors(dir) {
		for _, l := range lockfiles {
			if l.pm == pm && b.scan.has(join(d, l.file)) {
				return join(d, l.file)
			}
		}
	}
	return manifest
}

// ancestors lists dir and the directories above it up to the root (""), nearest first.
func ancestors(dir string) []string {
	out := []string{dir}
	for dir != "" {
		dir = path.Dir(dir)
		if dir == "." {
			dir = ""
		}
		out = append(out, dir)
	}
	return out
}
