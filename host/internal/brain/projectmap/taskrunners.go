package projectmap

import (
	"regexp"
	"strings"
)

// maxTargetsPerFile bounds the commands one Makefile, justfile or Taskfile contributes.
const maxTargetsPerFile = 30

var (
	// makeRule is a rule line: target names, one or two colons, not an assignment (:=, ::=).
	makeRule = regexp.MustCompile(`^([A-Za-z0-9_][A-Za-z0-9_.\-]*(?:[ \t]+[A-Za-z0-9_][A-Za-z0-9_.\-]*)*)[ \t]*::?(?:[^=:]|$)`)
	// makeSelfDoc is the "## target: help" convention of self-documenting Makefiles.
	makeSelfDoc = regexp.MustCompile(`^##+[ \t]*([A-Za-z0-9_][A-Za-z0-9_.\-]*)[ \t]*:[ \t]*(.*)$`)
	// justRecipe is a justfile recipe header: name, parameters, colon, dependencies.
	justRecipe = regexp.MustCompile(`^@?([A-Za-z_][A-Za-z0-9_\-]*)(?:[ \t]+[^:=]*)?[ \t]*:(?:[^=]|$)`)
)

// readMakefile turns rule targets into `make TARGET` commands. The help text is, in order of
// preference, an inline `## help` after the rule, a `## target: help` line anywhere (with
// its `##` continuation lines), or the comment block just above the rule.
func readMakefile(b *builder, a *analysis, dir, file string) {
	data, err := b.readWhole(file)
	if err != nil {
		return
	}
	a.addTool("Make", KindBuild, file)
	lines := strings.Split(string(data), "\n")
	selfDoc := map[string]string{}
	var docTarget string
	for _, line := range lines {
		if m := makeSelfDoc.FindStringSubmatch(line); m != nil {
			docTarget = m[1]
			selfDoc[docTarget] = strings.TrimSpace(m[2])
			continue
		}
		if docTarget != "" && strings.HasPrefix(line, "##") {
			selfDoc[docTarget] += " " + strings.TrimSpace(strings.TrimLeft(line, "#"))
			continue
		}
		docTarget = ""
	}
	var comment []string
	inDefine := false
	added := 0
	for _, line := range lines {
		switch {
		case inDefine:
			inDefine = !strings.HasPrefix(strings.TrimSpace(line), "endef")
			continue
		case strings.HasPrefix(line, "define "):
			inDefine = true
			continue
		case strings.HasPrefix(line, "\t"):
			continue
		case strings.HasPrefix(line, "#"):
			if !strings.HasPrefix(line, "##") {
				comment = append(comment, strings.TrimSpace(strings.TrimLeft(line, "#")))
			}
			continue
		}
		m := makeRule.FindStringSubmatch(line)
		if m == nil {
			comment = nil
			continue
		}
		inline := ""
		if _, help, ok := strings.Cut(line, "##"); ok {
			inline = strings.TrimSpace(help)
		}
		for _, target := range strings.Fields(m[1]) {
			if strings.HasPrefix(target, ".") || strings.Contains(target, ".") || added >= maxTargetsPerFile {
				continue // special targets (.PHONY) and file targets (foo.o)
			}
			desc := firstNonEmpty(inline, selfDoc[target], strings.Join(comment, " "))
			a.addCommand(rankMake, Command{Kind: classify(target), Run: "make " + target, Dir: dir, Description: firstSentence(desc), Source: file})
			added++
		}
		comment = nil
	}
}

// readJustfile turns recipes into `just RECIPE` commands, with the comment above each as its
// help. Private recipes (a leading underscore) are left out.
func readJustfile(b *builder, a *analysis, dir, file string) {
	data, err := b.readWhole(file)
	if err != nil {
		return
	}
	a.addTool("just", KindBuild, file)
	var comment []string
	added := 0
	for line := range strings.SplitSeq(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			comment = append(comment, strings.TrimSpace(strings.TrimLeft(line, "#")))
			continue
		case strings.HasPrefix(line, "[") || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t"):
			continue // attributes keep the comment for the recipe below; bodies are skipped
		}
		m := justRecipe.FindStringSubmatch(line)
		name := ""
		if m != nil {
			name = m[1]
		}
		switch name {
		case "", "set", "alias", "export", "import", "mod":
		default:
			if !strings.HasPrefix(name, "_") && added < maxTargetsPerFile {
				a.addCommand(rankJust, Command{Kind: classify(name), Run: "just " + name, Dir: dir, Description: firstSentence(strings.Join(comment, " ")), Source: file})
				added++
			}
		}
		comment = nil
	}
}

// readTaskfile turns go-task's tasks into `task NAME` commands with their desc. It reads the
// two-space indented layout every Taskfile uses rather than pulling in a YAML parser.
func readTaskfile(b *builder, a *analysis, dir, file string) {
	data, err := b.readWhole(file)
	if err != nil {
		return
	}
	a.addTool("Task", KindBuild, file)
	inTasks := false
	indent := -1
	var names []string
	descs := map[string]string{}
	for line := range strings.SplitSeq(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		lead := len(line) - len(strings.TrimLeft(line, " "))
		if lead == 0 {
			inTasks = strings.HasPrefix(line, "tasks:")
			indent = -1
			continue
		}
		if !inTasks {
			continue
		}
		if indent < 0 {
			indent = lead
		}
		key, val, ok := strings.Cut(trimmed, ":")
		switch {
		case lead == indent && ok && len(names) < maxTargetsPerFile:
			name := strings.Trim(key, `"'`)
			names = append(names, name)
		case lead > indent && ok && key == "desc" && len(names) > 0:
			descs[names[len(names)-1]] = strings.Trim(strings.TrimSpace(val), `"'`)
		}
	}
	for _, name := range names {
		if name != "" && !strings.HasPrefix(name, "_") {
			a.addCommand(rankTask, Command{Kind: classify(name), Run: "task " + name, Dir: dir, Description: firstSentence(descs[name]), Source: file})
		}
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
