package testplugins

import (
	"path/filepath"
	"sync"
	"testing"
)

var (
	denseOnce sync.Once
	denseDir  string
	denseErr  error
)

// Dense builds the BM25 floor and the dense embedder plugin (memhost-embedder-openaicompat)
// once per test process into a folder of their own and returns it: a plugins.dirs where auto
// tiering has both tiers to choose from.
func Dense(tb testing.TB) string {
	tb.Helper()
	denseOnce.Do(func() {
		if denseDir, denseErr = processDir("memhost-test-dense-"); denseErr != nil {
			return
		}
		for name, pkg := range map[string]string{
			"memhost-embedder-bm25":         BM25Package,
			"memhost-embedder-openaicompat": "plugins/embed-openaicompat",
		} {
			if denseErr = Build(filepath.Join(denseDir, name), pkg); denseErr != nil {
				return
			}
		}
	})
	if denseErr != nil {
		tb.Fatalf("testplugins: build embedder plugins: %v", denseErr)
	}
	return denseDir
}
