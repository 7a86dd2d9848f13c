package config

import (
	"fmt"
	"slices"
	"strings"
)

// namedTables walks a section of operator-named tables, [section.NAME], as koanf flattens
// them (key "NAME.FIELD" -> value), and calls set for every key whose FIELD is one of fields;
// set answers a problem with the value, or "". reserved, when not nil, is offered every key
// first and claims those of a reserved table (such as [workers.chains]). Every other key is a
// problem naming what a table of the section has; what is "a worker", "an embedder".
func namedTables(section, what string, all map[string]any, fields []string,
	reserved func(name, field string, v any) bool, set func(name, field string, v any) string) []Problem {
	var problems []Problem
	bad := func(key, msg string) { problems = append(problems, Problem{Key: key, Message: msg}) }
	for _, key := range sortedKeys(all) {
		v := all[key]
		full := section + "." + key
		if m, isTable := v.(map[string]any); isTable && len(m) == 0 {
			continue // an empty table, such as the example's [workers.chains]
		}
		name, field, ok := strings.Cut(key, ".")
		if !ok || strings.Contains(field, ".") {
			want := section + ".NAME.FIELD"
			if section == workersKey {
				want += " or workers.chains.TASK"
			}
			bad(full, "unknown key (want "+want+")")
			continue
		}
		if reserved != nil && reserved(name, field, v) {
			continue
		}
		if !slices.Contains(fields, field) {
			bad(full, fmt.Sprintf("unknown key (%s has %s)", what, strings.Join(fields, ", ")))
			continue
		}
		if msg := set(name, field, v); msg != "" {
			bad(full, msg)
		}
	}
	return problems
}
