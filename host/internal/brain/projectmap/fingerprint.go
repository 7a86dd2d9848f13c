package projectmap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Fingerprint bounds: how many directories and entries it looks at.
const (
	fingerprintMaxDirs    = 256
	fingerprintMaxEntries = 8192
)

// Fingerprint is a cheap summary of what a refresh would notice: HEAD's commit and the name,
// kind, size and modification time of every entry at the top two levels of dir (vendored and
// output directories left out). It reads no file and walks no deeper, so a caller can check
// it on every spawn and rebuild the map only when it changed or the map is Stale. Build
// records the same value in Map.Fingerprint. It depends on local mtimes: compare it only with
// maps built on the same machine.
func Fingerprint(ctx context.Context, dir string, opts Options) (string, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return "", err
	}
	root, err := resolveRoot(dir)
	if err != nil {
		return "", err
	}
	var head string
	if out, err := runGit(ctx, o, root, "rev-parse", "-q", "--verify", "HEAD"); err == nil {
		head = strings.TrimSpace(string(out))
	}
	return fingerprint(root, head), nil
}

func fingerprint(root, head string) string {
	h := sha256.New()
	fmt.Fprintf(h, "head %s\n", head)
	entries := 0
	tops := 0
	var visit func(rel string, depth int)
	visit = func(rel string, depth int) {
		list, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return
		}
		for _, e := range list {
			if entries >= fingerprintMaxEntries {
				return
			}
			entries++
			if vendoredDirs[e.Name()] || outputDirs[e.Name()] {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue
			}
			writeEntry(h, join(rel, e.Name()), info)
			if e.IsDir() && depth == 0 && tops < fingerprintMaxDirs {
				tops++
				visit(join(rel, e.Name()), 1)
			}
		}
	}
	visit("", 0)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:32]
}

func writeEntry(w io.Writer, rel string, info os.FileInfo) {
	size := info.Size()
	if info.IsDir() {
		size = 0 // a directory's size is filesystem bookkeeping, not content
	}
	fmt.Fprintf(w, "%s\x00%s\x00%d\x00%d\n", rel, info.Mode().Type(), size, info.ModTime().UnixNano())
}
