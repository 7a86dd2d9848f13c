package plugins

import (
	"cmp"
	"slices"
	"strings"
)

// Instance returns the candidate among found of kind whose name part is plugin (bm25 in
// memhost-embedder-bm25), configured as one named instance: labelled instance and started
// with conf's variables added to its environment. Several instances may share a binary. False
// when no such binary was found.
func Instance(found []Candidate, kind, plugin, instance string, conf Configured) (Candidate, bool) {
	i := slices.IndexFunc(found, func(c Candidate) bool { return c.Kind == kind && c.Name == plugin })
	if i < 0 {
		return Candidate{}, false
	}
	c := found[i]
	c.Instance = instance
	c.Env = slices.Clone(conf.Env)
	c.Keys = conf.Keys
	return c, true
}

// Setting is one value a configured instance of a plugin is told: the variable the plugin
// reads (MEMHOST_EMBEDDER_MAX_INPUT_TOKENS), the operator's key it comes from
// (embedders.local.max_input_tokens) and its value, "" when unset.
type Setting struct{ Var, Key, Value string }

// Configured is what one configured instance of a plugin is told (Env, KEY=VALUE) and which
// operator's key each of its setting variables stands for (Keys), so that what the plugin says
// about a variable reaches the operator as the key they set (see Plugin.Explain).
type Configured struct {
	Env  []string
	Keys map[string]string
}

// Settings builds what one configured instance of a plugin is told: VAR=VALUE for each setting
// whose value is set, then each variable named in pass that the host's environment (environ)
// has, such as the one holding an API key. Nothing else of the host's environment reaches a
// plugin (see pluginEnv).
func Settings(settings []Setting, pass []string, environ func(string) (string, bool)) Configured {
	conf := Configured{Keys: map[string]string{}}
	for _, s := range settings {
		conf.Keys[s.Var] = s.Key
		if s.Value != "" {
			conf.Env = append(conf.Env, s.Var+"="+s.Value)
		}
	}
	for _, k := range pass {
		if v, ok := environ(k); ok {
			conf.Env = append(conf.Env, k+"="+v)
		}
	}
	return conf
}

// explainer rewrites the setting variables in keys into the operator's keys, the longest
// variable first so that one that is a prefix of another does not cut it. Nil for none.
func explainer(keys map[string]string) *strings.Replacer {
	if len(keys) == 0 {
		return nil
	}
	vars := make([]string, 0, len(keys))
	for v := range keys {
		vars = append(vars, v)
	}
	slices.SortFunc(vars, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	pairs := make([]string, 0, 2*len(vars))
	for _, v := range vars {
		pairs = append(pairs, v, keys[v])
	}
	return strings.NewReplacer(pairs...)
}
