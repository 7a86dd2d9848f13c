package plugins

import "slices"

// Instance returns the candidate among found of kind whose name part is plugin (bm25 in
// memhost-embedder-bm25), configured as one named instance: labelled instance and started
// with env added to its environment. Several instances may share a binary. False when no such
// binary was found.
func Instance(found []Candidate, kind, plugin, instance string, env []string) (Candidate, bool) {
	i := slices.IndexFunc(found, func(c Candidate) bool { return c.Kind == kind && c.Name == plugin })
	if i < 0 {
		return Candidate{}, false
	}
	c := found[i]
	c.Instance = instance
	c.Env = slices.Clone(env)
	return c, true
}

// Settings builds what one configured instance of a plugin is told: KEY=VALUE for each pair
// of settings (key, value) whose value is set, then each variable named in pass that the
// host's environment (environ) has, such as the one holding an API key. Nothing else of the
// host's environment reaches a plugin (see pluginEnv).
func Settings(settings [][2]string, pass []string, environ func(string) (string, bool)) []string {
	var env []string
	for _, s := range settings {
		if s[1] != "" {
			env = append(env, s[0]+"="+s[1])
		}
	}
	for _, k := range pass {
		if v, ok := environ(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
