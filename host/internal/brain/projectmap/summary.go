package projectmap

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Summary limits: how much of each list the text shows at most.
const (
	summaryLanguages   = 6
	summaryCommands    = 24
	summaryEntryPoints = 8
	summaryHotFiles    = 6
	// summaryLineBytes keeps any one line from crowding out the lines after it.
	summaryLineBytes    = 200
	summarySubjectBytes = 90
)

// Summary priorities: when the budget is short, lines are kept in this order. A line's
// place in the text does not change with the budget; only whether it is there.
const (
	prioHeader = iota
	prioTruncated
	prioDescription
	prioLanguages
	prioRootCommand // build, test and lint at the root
	prioFrameworks
	prioGitHead
	prioStack
	prioModuleCommand // build, test and lint in a module
	prioDirs
	prioEntryPoints
	prioOtherCommand
	prioRecent
	prioHotFiles
)

// Summary sections, in the order they are printed.
const (
	secHead = iota
	secStack
	secCommands
	secLayout
	secGit
)

var sectionHeaders = [...]string{
	secCommands: "Commands (run at the root unless a directory is given):",
	secLayout:   "Layout:",
	secGit:      "",
}

// Summary renders the map as compact text for the spawn banner, never longer than maxBytes
// (0 or less gives ""). When everything fits it is all there; otherwise the least important
// lines are left out and a closing line says how many, so a reader knows to ask for the full
// map. Lines are never cut, so no word or UTF-8 sequence is split. Deterministic.
func (m Map) Summary(maxBytes int) string {
	lines := m.summaryLines()
	if text := render(lines, allOf(lines)); len(text) <= maxBytes {
		return text
	}
	note := func(left int) string {
		return fmt.Sprintf("(map shortened: %d more lines in the full project map)", left)
	}
	reserve := len(note(len(lines))) + 1
	keep := choose(lines, maxBytes-reserve)
	text := render(lines, keep)
	left := len(lines)
	for _, k := range keep {
		if k {
			left--
		}
	}
	if text == "" {
		return ""
	}
	return text + "\n" + note(left)
}

type summaryLine struct {
	section, prio int
	text          string
}

func allOf(lines []summaryLine) []bool {
	keep := make([]bool, len(lines))
	for i := range keep {
		keep[i] = true
	}
	return keep
}

// choose keeps lines by priority, then position, up to the first that does not fit in budget
// bytes (each line and each section header it opens counted with its newline), so a kept
// line never outranks a dropped one.
func choose(lines []summaryLine, budget int) []bool {
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(lines[x].prio, lines[y].prio) })
	keep := make([]bool, len(lines))
	var opened [secGit + 1]bool
	used := 0
	for _, i := range order {
		l := lines[i]
		cost := len(l.text) + 1
		if header := sectionHeaders[l.section]; header != "" && !opened[l.section] {
			cost += len(header) + 1
		}
		if used+cost > budget {
			break // a line that does not fit ends the text: priority order holds strictly
		}
		used += cost
		keep[i] = true
		opened[l.section] = true
	}
	return keep
}

// render prints the kept lines in their sections, each section's header before its first
// kept line.
func render(lines []summaryLine, keep []bool) string {
	var b strings.Builder
	var opened [secGit + 1]bool
	for i, l := range lines {
		if !keep[i] {
			continue
		}
		if header := sectionHeaders[l.section]; header != "" && !opened[l.section] {
			opened[l.section] = true
			b.WriteString(header)
			b.WriteByte('\n')
		}
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// summaryLines lays the map out as lines in print order, each with its priority.
func (m Map) summaryLines() []summaryLine {
	var out []summaryLine
	add := func(section, prio int, format string, args ...any) {
		out = append(out, summaryLine{section: section, prio: prio, text: clip(fmt.Sprintf(format, args...), summaryLineBytes)})
	}

	add(secHead, prioHeader, "Project map (%d files, generated %s):", m.Files, m.GeneratedAt.UTC().Format("2006-01-02 15:04 UTC"))
	if m.Description != "" {
		add(secHead, prioDescription, "About: %s", m.Description)
	}
	if len(m.Truncated) > 0 {
		add(secHead, prioTruncated, "Incomplete (%s): large tree, the listing was cut short.", strings.Join(m.Truncated, ", "))
	}
	if langs := languageShares(m.Languages); len(langs) > 0 {
		add(secHead, prioLanguages, "%s", listLine("Languages: ", langs, ", "))
	}

	for _, group := range []struct {
		label string
		kinds []string
		prio  int
	}{
		{"Frameworks", []string{KindFramework}, prioFrameworks},
		{"Libraries", []string{KindLibrary}, prioStack},
		{"Tooling", []string{KindPackageManager, KindBuild, KindTest, KindLint}, prioStack},
		{"Delivery", []string{KindContainer, KindCI}, prioStack},
	} {
		var names []string
		for _, t := range m.Tools {
			if slices.Contains(group.kinds, t.Kind) {
				names = append(names, t.Name)
			}
		}
		if len(names) > 0 {
			add(secStack, group.prio, "%s", listLine(group.label+": ", names, ", "))
		}
	}

	// Root commands get a line each, with their help; a module's commands share one line.
	var dirs []string
	byDir := map[string][]Command{}
	for i, c := range m.Commands {
		if i >= summaryCommands {
			break
		}
		if c.Dir == "" {
			prio := prioOtherCommand
			if c.Kind == CmdBuild || c.Kind == CmdTest || c.Kind == CmdLint {
				prio = prioRootCommand
			}
			text := "- " + c.Run
			if c.Description != "" && c.Description != c.Run {
				text += " — " + c.Description
			}
			add(secCommands, prio, "%s", text)
			continue
		}
		if byDir[c.Dir] == nil {
			dirs = append(dirs, c.Dir)
		}
		byDir[c.Dir] = append(byDir[c.Dir], c)
	}
	for _, dir := range dirs {
		runs := make([]string, 0, len(byDir[dir]))
		for _, c := range byDir[dir] {
			runs = append(runs, c.Run)
		}
		add(secCommands, prioModuleCommand, "%s", listLine("- in "+dir+": ", runs, " · "))
	}

	modules := map[string][]Module{}
	for _, mod := range m.Modules {
		top, _, _ := strings.Cut(mod.Dir, "/")
		modules[top] = append(modules[top], mod)
	}
	for _, mod := range modules[""] {
		add(secLayout, prioDirs, "- ./ (%s)", moduleLabel(mod))
	}
	for _, d := range m.Dirs {
		text := fmt.Sprintf("- %s/ (%s", d.Path, plural(d.Files, "file"))
		var subs []Module
		for _, mod := range modules[d.Path] {
			if mod.Dir == d.Path {
				text += "; " + moduleLabel(mod)
			} else {
				subs = append(subs, mod)
			}
		}
		text += ")"
		if d.Description != "" {
			text += ": " + d.Description
		}
		add(secLayout, prioDirs, "%s", text)
		for _, mod := range subs {
			sub := fmt.Sprintf("  - %s/ (%s; %s)", mod.Dir, plural(mod.Files, "file"), moduleLabel(mod))
			if mod.Description != "" {
				sub += ": " + mod.Description
			}
			add(secLayout, prioDirs, "%s", sub)
		}
	}
	if len(m.EntryPoints) > 0 {
		add(secLayout, prioEntryPoints, "%s", listLine("Entry points: ", m.EntryPoints[:min(len(m.EntryPoints), summaryEntryPoints)], ", "))
	}
	if len(m.KeyFiles) > 0 {
		add(secLayout, prioEntryPoints, "%s", listLine("Key files: ", m.KeyFiles, ", "))
	}

	if g := m.Git; g != nil {
		head := "Git: "
		if g.Branch != "" {
			head += "branch " + g.Branch
		} else {
			head += "detached HEAD"
		}
		if g.Head != nil {
			head += fmt.Sprintf(" at %s %q (%s)", g.Head.Hash, clip(g.Head.Subject, summarySubjectBytes), g.Head.Time.UTC().Format("2006-01-02"))
		}
		add(secGit, prioGitHead, "%s", head)
		if g.Recent.Commits > 0 {
			more := ""
			if g.Recent.CommitsCapped {
				more = "+"
			}
			add(secGit, prioRecent, "Since %s: %d%s commits. Latest:", g.Recent.Since.UTC().Format("2006-01-02"), g.Recent.Commits, more)
			for _, c := range g.Recent.Latest {
				add(secGit, prioRecent, "- %s %s", c.Hash, clip(c.Subject, summarySubjectBytes))
			}
		}
		if len(g.Recent.HotFiles) > 0 {
			var hot []string
			for _, h := range g.Recent.HotFiles[:min(len(g.Recent.HotFiles), summaryHotFiles)] {
				hot = append(hot, fmt.Sprintf("%s (%d)", h.Path, h.Commits))
			}
			add(secGit, prioHotFiles, "%s", listLine("Hot files (commits): ", hot, ", "))
		}
	}
	return out
}

// languageShares lists the top languages with their share of the counted source files.
func languageShares(langs []Language) []string {
	total := 0
	for _, l := range langs {
		total += l.Files
	}
	if total == 0 {
		return nil
	}
	parts := make([]string, 0, summaryLanguages)
	for _, l := range langs[:min(len(langs), summaryLanguages)] {
		share := l.Files * 100 / total
		if share == 0 {
			parts = append(parts, l.Name+" <1%")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d%%", l.Name, share))
	}
	return parts
}

func moduleLabel(mod Module) string {
	if mod.Name == "" {
		return mod.Ecosystem + " module"
	}
	return mod.Ecosystem + " module " + mod.Name
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// listLine joins whole items after prefix while the line stays within summaryLineBytes, and
// marks a cut list with an ellipsis, so no item is printed half.
func listLine(prefix string, items []string, sep string) string {
	const more = "…"
	line := prefix
	for i, item := range items {
		next := item
		if i > 0 {
			next = sep + item
		}
		if len(line)+len(next)+len(sep)+len(more) > summaryLineBytes {
			if i == 0 {
				return clip(line+item, summaryLineBytes)
			}
			return line + sep + more
		}
		line += next
	}
	return line
}
