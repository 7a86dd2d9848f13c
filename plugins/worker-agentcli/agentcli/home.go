package agentcli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// userDir is the user's configuration folder of a CLI: the variable that
// relocates it when set (joined with sub for Gemini CLI, whose variable
// relocates ~), else ~/dotdir.
func userDir(env []string, variable, sub, dotdir string) string {
	if d := lookup(env, variable); d != "" {
		return filepath.Join(d, sub)
	}
	return filepath.Join(lookup(env, "HOME"), dotdir)
}

// linkFiles links each of names that exists in from into to: the user's
// credentials, read by the CLI where they are (a token it refreshes is
// refreshed in the user's own file).
func linkFiles(from, to string, names ...string) error {
	for _, n := range names {
		src := filepath.Join(from, n)
		if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := os.Symlink(src, filepath.Join(to, n)); err != nil {
			return err
		}
	}
	return nil
}

// keptSettings reads the user's settings file at path with unmarshal and returns its keys in
// kept alone, the start of a run's own settings: a missing file is none. notFormat ends the
// error of a file unmarshal cannot read ("config.toml is not TOML").
func keptSettings(path string, kept []string, unmarshal func([]byte, any) error, notFormat string) (map[string]any, error) {
	doc := map[string]any{}
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return doc, nil
	case err != nil:
		return nil, err
	}
	var user map[string]any
	if err := unmarshal(raw, &user); err != nil {
		return nil, fmt.Errorf("the user's %s: %w", notFormat, err)
	}
	for _, k := range kept {
		if v, ok := user[k]; ok {
			doc[k] = v
		}
	}
	return doc, nil
}
