package memory

import (
	"context"
	"fmt"
	"sync"

	"github.com/memhost/memhost/sdk/embedder"
)

// Fixed is an EmbedderSource that always answers with one embedder, describing it once.
func Fixed(e embedder.Embedder) EmbedderSource { return &fixed{e: e} }

type fixed struct {
	e    embedder.Embedder
	mu   sync.Mutex
	info *embedder.Info
}

func (f *fixed) Active(ctx context.Context) (embedder.Embedder, embedder.Info, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.info == nil {
		info, err := f.e.Describe(ctx)
		if err != nil {
			return nil, info, fmt.Errorf("describe embedder: %w", err)
		}
		f.info = &info
	}
	return f.e, *f.info, nil
}
