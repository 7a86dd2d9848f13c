package agentcli

import (
	"errors"
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
