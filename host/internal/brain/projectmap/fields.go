package projectmap

import "fmt"

// field is one string of a map: its name in the JSON form (for errors), where it lives, and
// the rule it is held to.
type field struct {
	name  string
	value *string
	limit int
	path  bool // a path: relative, slash-separated, inside the project
}

// fields lists every string a map holds, in the JSON form's order. It is the one list that
// validation and redaction walk, so a string added to the map is held to both.
func (m *Map) fields() []field {
	var out []field
	text := func(name string, v *string, limit int) {
		out = append(out, field{name: name, value: v, limit: limit})
	}
	path := func(name string, v *string) {
		out = append(out, field{name: name, value: v, limit: MaxPathBytes, path: true})
	}
	text("fingerprint", &m.Fingerprint, maxFingerprintBytes)
	text("description", &m.Description, MaxTextBytes)
	for i := range m.Truncated {
		text(fmt.Sprintf("truncated[%d]", i), &m.Truncated[i], MaxTextBytes)
	}
	for i := range m.Languages {
		text(fmt.Sprintf("languages[%d].name", i), &m.Languages[i].Name, MaxTextBytes)
	}
	for i := range m.Tools {
		t, f := &m.Tools[i], fmt.Sprintf("tools[%d]", i)
		text(f+".name", &t.Name, MaxTextBytes)
		text(f+".kind", &t.Kind, MaxTextBytes)
		path(f+".source", &t.Source)
	}
	for i := range m.Commands {
		c, f := &m.Commands[i], fmt.Sprintf("commands[%d]", i)
		text(f+".kind", &c.Kind, MaxTextBytes)
		text(f+".run", &c.Run, MaxRunBytes)
		path(f+".dir", &c.Dir)
		text(f+".description", &c.Description, MaxTextBytes)
		path(f+".source", &c.Source)
	}
	for i := range m.Dirs {
		d, f := &m.Dirs[i], fmt.Sprintf("dirs[%d]", i)
		path(f+".path", &d.Path)
		text(f+".description", &d.Description, MaxTextBytes)
	}
	for i := range m.Modules {
		mod, f := &m.Modules[i], fmt.Sprintf("modules[%d]", i)
		path(f+".dir", &mod.Dir)
		text(f+".ecosystem", &mod.Ecosystem, MaxTextBytes)
		text(f+".name", &mod.Name, MaxTextBytes)
		text(f+".description", &mod.Description, MaxTextBytes)
	}
	for i := range m.KeyFiles {
		path(fmt.Sprintf("key_files[%d]", i), &m.KeyFiles[i])
	}
	for i := range m.EntryPoints {
		path(fmt.Sprintf("entry_points[%d]", i), &m.EntryPoints[i])
	}
	if g := m.Git; g != nil {
		commit := func(f string, c *Commit) {
			text(f+".hash", &c.Hash, maxHashBytes)
			text(f+".subject", &c.Subject, MaxTextBytes)
		}
		text("git.branch", &g.Branch, MaxTextBytes)
		if g.Head != nil {
			commit("git.head", g.Head)
		}
		for i := range g.Recent.Latest {
			commit(fmt.Sprintf("git.recent.latest[%d]", i), &g.Recent.Latest[i])
		}
		for i := range g.Recent.HotFiles {
			path(fmt.Sprintf("git.recent.hot_files[%d].path", i), &g.Recent.HotFiles[i].Path)
		}
	}
	return out
}

// Redact passes every string of the map through redact, which replaces secrets in place and
// returns how many it replaced, and returns the total. A map is the project's own text
// (README sentences, Makefile help, commit subjects) or an uploader's, and every banner shows
// it, so a host redacts it before storing it, as it does every memory.
func (m *Map) Redact(redact func(*string) int) int {
	n := 0
	for _, f := range m.fields() {
		if *f.value != "" {
			n += redact(f.value)
		}
	}
	return n
}
