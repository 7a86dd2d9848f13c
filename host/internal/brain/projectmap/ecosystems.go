package projectmap

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// rustTools maps crate names to what they show.
var rustTools = map[string]Tool{
	"axum": {Name: "axum", Kind: KindFramework}, "actix-web": {Name: "Actix Web", Kind: KindFramework},
	"rocket": {Name: "Rocket", Kind: KindFramework}, "warp": {Name: "warp", Kind: KindFramework},
	"tauri": {Name: "Tauri", Kind: KindFramework}, "bevy": {Name: "Bevy", Kind: KindFramework},
	"leptos": {Name: "Leptos", Kind: KindFramework}, "tokio": {Name: "Tokio", Kind: KindLibrary},
	"serde": {Name: "Serde", Kind: KindLibrary}, "clap": {Name: "clap", Kind: KindLibrary},
	"sqlx": {Name: "SQLx", Kind: KindLibrary}, "diesel": {Name: "Diesel", Kind: KindLibrary},
	"tonic": {Name: "tonic", Kind: KindFramework},
}

// readCargo reads a crate or workspace. Commands are given once, at the outermost
// Cargo.toml: cargo runs a workspace's members from its root.
func readCargo(b *builder, a *analysis, dir, file string) {
	doc, ok := b.readTOML(file)
	if !ok {
		return
	}
	pkg := table(doc, "package")
	a.addModule(b.scan, dir, "rust", str(pkg, "name"), str(pkg, "description"))
	a.addTool("Cargo", KindBuild, file)
	var deps []string
	for _, section := range []map[string]any{
		table(doc, "dependencies"), table(doc, "dev-dependencies"), table(table(doc, "workspace"), "dependencies"),
	} {
		deps = append(deps, slices.Collect(maps.Keys(section))...)
	}
	slices.Sort(deps)
	a.detect(rustTools, deps, file)
	for _, up := range ancestors(dir)[1:] {
		if b.scan.has(join(up, "Cargo.toml")) {
			return
		}
	}
	for _, c := range []Command{
		{Kind: CmdBuild, Run: "cargo build"}, {Kind: CmdTest, Run: "cargo test"},
		{Kind: CmdLint, Run: "cargo clippy --all-targets"}, {Kind: CmdFormat, Run: "cargo fmt"},
	} {
		c.Dir, c.Source = dir, file
		a.addCommand(rankToolchain, c)
	}
}

// gemRequirement is a Gemfile line naming a gem.
var gemRequirement = regexp.MustCompile(`(?m)^\s*gem\s+['"]([^'"]+)['"]`)

var rubyTools = map[string]Tool{
	"rails": {Name: "Ruby on Rails", Kind: KindFramework}, "sinatra": {Name: "Sinatra", Kind: KindFramework},
	"hanami": {Name: "Hanami", Kind: KindFramework}, "rspec": {Name: "RSpec", Kind: KindTest},
	"rspec-rails": {Name: "RSpec", Kind: KindTest}, "minitest": {Name: "Minitest", Kind: KindTest},
	"rubocop": {Name: "RuboCop", Kind: KindLint},
}

// readGemfile reads a Ruby project's gems; tests and lint run through Bundler.
func readGemfile(b *builder, a *analysis, dir, file string) {
	data, err := b.readWhole(file)
	if err != nil {
		return
	}
	var gems []string
	for _, m := range gemRequirement.FindAllStringSubmatch(string(data), -1) {
		gems = append(gems, m[1])
	}
	a.addModule(b.scan, dir, "ruby", "", "")
	a.addTool("Bundler", KindPackageManager, file)
	a.detect(rubyTools, gems, file)
	switch {
	case slices.Contains(gems, "rspec") || slices.Contains(gems, "rspec-rails"):
		a.addCommand(rankToolchain, Command{Kind: CmdTest, Run: "bundle exec rspec", Dir: dir, Source: file})
	case slices.Contains(gems, "rails"):
		a.addCommand(rankToolchain, Command{Kind: CmdTest, Run: "bin/rails test", Dir: dir, Source: file})
	case b.scan.has(join(dir, "Rakefile")):
		a.addCommand(rankToolchain, Command{Kind: CmdTest, Run: "bundle exec rake test", Dir: dir, Source: file})
	}
	if slices.Contains(gems, "rubocop") {
		a.addCommand(rankToolchain, Command{Kind: CmdLint, Run: "bundle exec rubocop", Dir: dir, Source: file})
	}
	if slices.Contains(gems, "rails") {
		a.addCommand(rankToolchain, Command{Kind: CmdRun, Run: "bin/rails server", Dir: dir, Source: file})
	}
}

// jvmTools are found by substring in Maven and Gradle build files.
var jvmTools = []struct {
	needle string
	tool   Tool
}{
	{"spring-boot", Tool{Name: "Spring Boot", Kind: KindFramework}},
	{"org.springframework.boot", Tool{Name: "Spring Boot", Kind: KindFramework}},
	{"io.quarkus", Tool{Name: "Quarkus", Kind: KindFramework}},
	{"io.micronaut", Tool{Name: "Micronaut", Kind: KindFramework}},
	{"com.android.application", Tool{Name: "Android", Kind: KindFramework}},
	{"io.ktor", Tool{Name: "Ktor", Kind: KindFramework}},
	{"junit", Tool{Name: "JUnit", Kind: KindTest}},
}

// readMaven reads pom.xml; commands go through the Maven wrapper when there is one.
func readMaven(b *builder, a *analysis, dir, file string) {
	data, err := b.readHead(file, maxManifestBytes)
	if err != nil {
		return
	}
	a.addModule(b.scan, dir, "java", xmlValue(data, "artifactId"), xmlValue(data, "description"))
	a.addTool("Maven", KindBuild, file)
	detectJVM(a, data, file)
	mvn := "mvn"
	if b.scan.has(join(dir, "mvnw")) {
		mvn = "./mvnw"
	}
	a.addCommand(rankToolchain, Command{Kind: CmdBuild, Run: mvn + " package", Dir: dir, Source: file})
	a.addCommand(rankToolchain, Command{Kind: CmdTest, Run: mvn + " test", Dir: dir, Source: file})
}

// readGradle reads build.gradle(.kts); commands go through the Gradle wrapper when there is one.
func readGradle(b *builder, a *analysis, dir, file string) {
	data, err := b.readHead(file, maxManifestBytes)
	if err != nil {
		return
	}
	a.addModule(b.scan, dir, "jvm", "", "")
	a.addTool("Gradle", KindBuild, file)
	detectJVM(a, data, file)
	gradle := "gradle"
	for _, d := range ancestors(dir) {
		if b.scan.has(join(d, "gradlew")) {
			gradle = "./gradlew"
			if d != dir {
				return // a subproject: the root's wrapper builds it
			}
			break
		}
	}
	a.addCommand(rankToolchain, Command{Kind: CmdBuild, Run: gradle + " build", Dir: dir, Source: file})
	a.addCommand(rankToolchain, Command{Kind: CmdTest, Run: gradle + " test", Dir: dir, Source: file})
}

func detectJVM(a *analysis, data []byte, file string) {
	text := string(data)
	for _, j := range jvmTools {
		if strings.Contains(text, j.needle) {
			a.addTool(j.tool.Name, j.tool.Kind, file)
		}
	}
}

// xmlValue is the text of the first <tag> at the top of a pom (before any dependency), which
// is the project's own element for artifactId and description.
func xmlValue(data []byte, tag string) string {
	text := string(data)
	if i := strings.Index(text, "<dependencies>"); i >= 0 {
		text = text[:i]
	}
	if i := strings.Index(text, "<parent>"); i >= 0 {
		if j := strings.Index(text, "</parent>"); j > i {
			text = text[:i] + text[j:]
		}
	}
	_, rest, ok := strings.Cut(text, "<"+tag+">")
	if !ok {
		return ""
	}
	value, _, _ := strings.Cut(rest, "</"+tag+">")
	return strings.TrimSpace(value)
}

var phpTools = map[string]Tool{
	"laravel/framework": {Name: "Laravel", Kind: KindFramework}, "symfony/framework-bundle": {Name: "Symfony", Kind: KindFramework},
	"phpunit/phpunit": {Name: "PHPUnit", Kind: KindTest}, "pestphp/pest": {Name: "Pest", Kind: KindTest},
	"phpstan/phpstan": {Name: "PHPStan", Kind: KindLint},
}

// readComposer reads composer.json: dependencies and scripts (`composer NAME`).
func readComposer(b *builder, a *analysis, dir, file string) {
	var pkg struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Require     map[string]any `json:"require"`
		RequireDev  map[string]any `json:"require-dev"`
		Scripts     map[string]any `json:"scripts"`
	}
	if !b.readJSON(file, &pkg) {
		return
	}
	a.addModule(b.scan, dir, "php", pkg.Name, pkg.Description)
	a.addTool("Composer", KindPackageManager, file)
	deps := slices.Sorted(maps.Keys(pkg.Require))
	deps = append(deps, slices.Sorted(maps.Keys(pkg.RequireDev))...)
	a.detect(phpTools, deps, file)
	for i, name := range slices.Sorted(maps.Keys(pkg.Scripts)) {
		if i >= maxTargetsPerFile || strings.HasPrefix(name, "pre-") || strings.HasPrefix(name, "post-") {
			continue
		}
		a.addCommand(rankScripts, Command{Kind: classify(name), Run: "composer " + name, Dir: dir, Source: file})
	}
}

// readCMake marks a CMake project with the usual out-of-tree build.
func readCMake(b *builder, a *analysis, dir, file string) {
	for _, up := range ancestors(dir)[1:] {
		if b.scan.has(join(up, "CMakeLists.txt")) {
			return // a subdirectory of a CMake project, built from the top
		}
	}
	a.addModule(b.scan, dir, "cmake", "", "")
	a.addTool("CMake", KindBuild, file)
	a.addCommand(rankToolchain, Command{Kind: CmdBuild, Run: "cmake -B build && cmake --build build", Dir: dir, Source: file})
	a.addCommand(rankToolchain, Command{Kind: CmdTest, Run: "ctest --test-dir build", Dir: dir, Source: file})
}
