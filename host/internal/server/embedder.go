package server

import (
	"fmt"
	"strings"

	"github.com/memhost/memhost/host/internal/plugins"
)

// bm25Prefix names the always-present floor embedder.
const bm25Prefix = "bm25-"

// chooseEmbedder picks the active embedder: the configured name, else the only embedder,
// else the BM25 floor. Ambiguity without configuration is an error, not a guess: the choice
// decides which vectors every memory gets.
func chooseEmbedder(handles []plugins.EmbedderHandle, configured string) (plugins.EmbedderHandle, error) {
	names := make([]string, len(handles))
	for i, h := range handles {
		names[i] = h.Info().Name
	}
	if configured != "" {
		for _, h := range handles {
			if h.Info().Name == configured {
				return h, nil
			}
		}
		return nil, fmt.Errorf("embedder.active is %q but the running embedder plugins are [%s]", configured, strings.Join(names, ", "))
	}
	switch len(handles) {
	case 0:
		return nil, fmt.Errorf("no embedder plugin found; build them with `make build` (the BM25 floor is bin/plugins/memhost-embedder-bm25) or set plugins.dirs")
	case 1:
		return handles[0], nil
	}
	for _, h := range handles {
		if strings.HasPrefix(h.Info().Name, bm25Prefix) {
			return h, nil
		}
	}
	return nil, fmt.Errorf("several embedders are running [%s]; choose one with embedder.active", strings.Join(names, ", "))
}
