package server

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
)

// bm25Prefix names the always-present floor embedder.
const bm25Prefix = "bm25-"

// ChooseEmbedder picks the active embedder among those s runs: the one embedder.active
// names, else the only embedder, else the BM25 floor. embedder.active may be what an
// operator sees in the plugin folder (the file name memhost-embedder-bm25, or bm25) or the
// name the plugin reports (bm25-v1-384). Ambiguity without configuration is an error, not a
// guess: the choice decides which vectors every memory gets. `memhost config check` calls it
// too, so it finds what boot would.
func ChooseEmbedder(s *plugins.Supervisor, configured string) (*embedders.Handle, error) {
	handles := embedders.List(s)
	if configured != "" {
		h, err := embedders.Find(s, configured)
		switch {
		case err == nil:
			return h, nil
		case errors.Is(err, plugins.ErrNotFound):
			return nil, fmt.Errorf("embedder.active is %q but no embedder plugin answers to that name (running: %s)", configured, describe(handles))
		default:
			return nil, fmt.Errorf("embedder.active is %q but that plugin did not start (%v); `memhost plugins` shows why", configured, err)
		}
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
	return nil, fmt.Errorf("several embedders are running (%s); choose one with embedder.active", describe(handles))
}

// describe lists embedders with both names an operator may use for them.
func describe(handles []*embedders.Handle) string {
	if len(handles) == 0 {
		return "none"
	}
	names := make([]string, len(handles))
	for i, h := range handles {
		names[i] = h.Info().Name + " from " + h.Binary()
	}
	return strings.Join(names, ", ")
}
