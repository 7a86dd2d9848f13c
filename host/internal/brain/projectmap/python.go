package projectmap

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// pythonTools maps PyPI distribution names (lower case) to what they show.
var pythonTools = map[string]Tool{
	"django": {Name: "Django", Kind: KindFramework}, "flask": {Name: "Flask", Kind: KindFramework},
	"fastapi": {Name: "FastAPI", Kind: KindFramework}, "starlette": {Name: "Starlette", Kind: KindFramework},
	"tornado": {Name: "Tornado", Kind: KindFramework}, "aiohttp": {Name: "aiohttp", Kind: KindFramework},
	"streamlit": {Name: "Streamlit", Kind: KindFramework}, "celery": {Name: "Celery", Kind: KindLibrary},
	"sqlalchemy": {Name: "SQLAlchemy", Kind: KindLibrary}, "pydantic": {Name: "Pydantic", Kind: KindLibrary},
	"numpy": {Name: "NumPy", Kind: KindLibrary}, "pandas": {Name: "pandas", Kind: KindLibrary},
	"torch": {Name: "PyTorch", Kind: KindLibrary}, "tensorflow": {Name: "TensorFlow", Kind: KindLibrary},
	"pytest": {Name: "pytest", Kind: KindTest}, "ruff": {Name: "Ruff", Kind: KindLint},
	"black": {Name: "Black", Kind: KindLint}, "mypy": {Name: "mypy", Kind: KindLint},
}

// pyRequirement is the distribution name at the start of a requirement ("Django>=4.2").
var pyRequirement = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._\-]*)`)

// pyQuoted finds quoted requirement strings in setup.py / setup.cfg.
var pyQuoted = regexp.MustCompile(`(?m)(?:['"]|^\s+)([A-Za-z0-9][A-Za-z0-9._\-]*)\s*(?:[<>=!~\[;'"]|$)`)

// readPyproject reads PEP 621 and Poetry metadata, dependencies, and the tool sections that
// say how the project is tested and linted.
func readPyproject(b *builder, a *analysis, dir, file string) {
	doc, ok := b.readTOML(file)
	if !ok {
		return
	}
	project := table(doc, "project")
	poetry := table(table(doc, "tool"), "poetry")
	tools := table(doc, "tool")
	name := firstNonEmpty(str(project, "name"), str(poetry, "name"))
	description := firstNonEmpty(str(project, "description"), str(poetry, "description"))
	a.addModule(b.scan, dir, "python", name, description)

	var deps []string
	for _, req := range strs(project["dependencies"]) {
		deps = append(deps, requirementName(req))
	}
	for _, group := range table(project, "optional-dependencies") {
		for _, req := range strs(group) {
			deps = append(deps, requirementName(req))
		}
	}
	for _, group := range table(doc, "dependency-groups") {
		for _, req := range strs(group) {
			deps = append(deps, requirementName(req))
		}
	}
	deps = append(deps, slices.Collect(maps.Keys(table(poetry, "dependencies")))...)
	for _, g := range table(poetry, "group") {
		if gt, ok := g.(map[string]any); ok {
			deps = append(deps, slices.Collect(maps.Keys(table(gt, "dependencies")))...)
		}
	}
	slices.Sort(deps)
	a.detect(pythonTools, deps, file)

	pm := b.pythonPackageManager(dir, poetry != nil, tools)
	a.addTool(pm, KindPackageManager, file)
	run := pythonRunner(pm)
	if _, ok := tools["pytest"]; ok || slices.Contains(deps, "pytest") || b.pytestConfigured(dir) {
		a.addTool("pytest", KindTest, file)
		a.addCommand(rankToolchain, Command{Kind: CmdTest, Run: run + "pytest", Dir: dir, Source: file})
	}
	if _, ok := tools["ruff"]; ok || slices.Contains(deps, "ruff") {
		a.addTool("Ruff", KindLint, file)
		a.addCommand(rankToolchain, Command{Kind: CmdLint, Run: run + "ruff check .", Dir: dir, Source: file})
		a.addCommand(rankToolchain, Command{Kind: CmdFormat, Run: run + "ruff format .", Dir: dir, Source: file})
	}
	if _, ok := tools["black"]; ok {
		a.addCommand(rankToolchain, Command{Kind: CmdFormat, Run: run + "black .", Dir: dir, Source: file})
	}
	if _, ok := tools["mypy"]; ok || slices.Contains(deps, "mypy") {
		a.addTool("mypy", KindLint, file)
		a.addCommand(rankToolchain, Command{Kind: CmdLint, Run: run + "mypy .", Dir: dir, Source: file})
	}
	scripts := table(project, "scripts")
	if len(scripts) == 0 {
		scripts = table(poetry, "scripts")
	}
	for i, name := range slices.Sorted(maps.Keys(scripts)) {
		if i >= maxTargetsPerFile {
			break
		}
		a.addCommand(rankToolchain, Command{Kind: CmdRun, Run: run + name, Dir: dir, Description: str(scripts, name), Source: file})
	}
}

// pythonPackageManager names the tool that manages the environment, by lockfile first.
func (b *builder) pythonPackageManager(dir string, poetry bool, tools map[string]any) string {
	for _, d := range ancestors(dir) {
		switch {
		case b.scan.has(join(d, "uv.lock")):
			return "uv"
		case b.scan.has(join(d, "poetry.lock")):
			return "Poetry"
		case b.scan.has(join(d, "pdm.lock")):
			return "PDM"
		case b.scan.has(join(d, "Pipfile")):
			return "Pipenv"
		}
	}
	switch {
	case poetry:
		return "Poetry"
	case tools["uv"] != nil:
		return "uv"
	case tools["pdm"] != nil:
		return "PDM"
	case tools["hatch"] != nil:
		return "Hatch"
	}
	return "pip"
}

// pythonRunner is the prefix that runs a tool inside the project's environment.
func pythonRunner(pm string) string {
	switch pm {
	case "uv":
		return "uv run "
	case "Poetry":
		return "poetry run "
	case "PDM":
		return "pdm run "
	case "Pipenv":
		return "pipenv run "
	case "Hatch":
		return "hatch run "
	}
	return ""
}

func (b *builder) pytestConfigured(dir string) bool {
	return b.scan.has(join(dir, "pytest.ini")) || b.scan.has(join(dir, "conftest.py")) ||
		b.scan.has(join(dir, "tests/conftest.py"))
}

// readRequirements reads requirements.txt: one requirement a line.
func readRequirements(b *builder, a *analysis, dir, file string) {
	data, err := b.readWhole(file)
	if err != nil {
		return
	}
	var deps []string
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "-") {
			continue
		}
		deps = append(deps, requirementName(line))
	}
	b.addPythonDeps(a, dir, file, deps)
}

// readSetupPy finds requirement-looking strings in setup.py or setup.cfg. It does not run
// or parse Python: a name only counts if it is a tool the map knows.
func readSetupPy(b *builder, a *analysis, dir, file string) {
	data, err := b.readWhole(file)
	if err != nil {
		return
	}
	var deps []string
	for _, m := range pyQuoted.FindAllStringSubmatch(string(data), -1) {
		if _, known := pythonTools[strings.ToLower(m[1])]; known {
			deps = append(deps, m[1])
		}
	}
	b.addPythonDeps(a, dir, file, deps)
}

func (b *builder) addPythonDeps(a *analysis, dir, file string, deps []string) {
	a.addModule(b.scan, dir, "python", "", "")
	slices.Sort(deps)
	a.detect(pythonTools, deps, file)
	pm := b.pythonPackageManager(dir, false, nil)
	a.addTool(pm, KindPackageManager, file)
	if slices.ContainsFunc(deps, func(d string) bool { return strings.EqualFold(d, "pytest") }) || b.pytestConfigured(dir) {
		a.addCommand(rankToolchain, Command{Kind: CmdTest, Run: pythonRunner(pm) + "pytest", Dir: dir, Source: file})
	}
}

// readManagePy marks a Django project and its manage.py commands.
func readManagePy(b *builder, a *analysis, dir, file string) {
	a.addTool("Django", KindFramework, file)
	run := pythonRunner(b.pythonPackageManager(dir, false, nil))
	a.addCommand(rankToolchain, Command{Kind: CmdRun, Run: run + "python manage.py runserver", Dir: dir, Source: file})
	a.addCommand(rankToolchain, Command{Kind: CmdTest, Run: run + "python manage.py test", Dir: dir, Source: file})
}

func requirementName(req string) string {
	if m := pyRequirement.FindStringSubmatch(req); m != nil {
		return strings.ToLower(m[1])
	}
	return ""
}

// table, str and strs read a TOML document decoded into maps without failing on a shape
// they did not expect.
func table(m map[string]any, key string) map[string]any {
	t, _ := m[key].(map[string]any)
	return t
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
