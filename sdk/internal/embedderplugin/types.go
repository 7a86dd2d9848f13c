package embedderplugin

import (
	"context"
	"errors"
	"fmt"
)

// Info mirrors embedder.Info field for field (sdk/embedder converts with
// Info(x)); see there for the contract of each field.
type Info struct {
	Name                   string
	Version                string
	Description            string
	Dimensions             int
	MaxBatch               int
	MaxInputBytes          int
	SuggestedFoldThreshold float64
}

// Validate reports the first way in which i breaks the protocol contract.
// Both adapters apply it: the server to what the implementation returns, the
// client to what the plugin sends.
func (i Info) Validate() error {
	switch {
	case i.Name == "":
		return errors.New("name is empty")
	case i.Dimensions <= 0:
		return fmt.Errorf("dimensions %d must be > 0", i.Dimensions)
	case i.MaxBatch <= 0:
		return fmt.Errorf("max batch %d must be > 0", i.MaxBatch)
	case i.MaxInputBytes < 0:
		return fmt.Errorf("max input bytes %d must be >= 0", i.MaxInputBytes)
	case !(i.SuggestedFoldThreshold > 0 && i.SuggestedFoldThreshold <= 1):
		return fmt.Errorf("suggested fold threshold %v must be in (0, 1]", i.SuggestedFoldThreshold)
	}
	return nil
}

// Purpose mirrors embedder.Purpose.
type Purpose int

// The purposes, numbered as embedder's.
const (
	PurposeDocument Purpose = iota
	PurposeQuery
)

// Embedder mirrors embedder.Embedder over this package's types.
type Embedder interface {
	Describe(ctx context.Context) (Info, error)
	Embed(ctx context.Context, purpose Purpose, texts []string) ([][]float32, error)
	Health(ctx context.Context) error
}
