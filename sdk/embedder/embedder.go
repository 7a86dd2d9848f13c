package embedder

import (
	"context"
	"errors"
	"fmt"

	"github.com/memhost/memhost/sdk/plugin"
)

// Purpose says why texts are embedded. Asymmetric models embed queries and
// documents differently; symmetric embedders ignore it. The zero value is
// PurposeDocument, matching the protocol's treatment of an unset purpose.
type Purpose int

const (
	// PurposeDocument marks texts that are stored facts.
	PurposeDocument Purpose = iota
	// PurposeQuery marks search queries compared against stored facts.
	PurposeQuery
)

// String returns "document", "query" or "Purpose(n)" for invalid values.
func (p Purpose) String() string {
	switch p {
	case PurposeDocument:
		return "document"
	case PurposeQuery:
		return "query"
	default:
		return fmt.Sprintf("Purpose(%d)", int(p))
	}
}

// Info describes an embedder. See the DescribeResponse message in
// proto/memhost/v1/embedder.proto for the full contract of each field.
type Info struct {
	// Name identifies the vector space, e.g. "bm25-v1-384"; it must change
	// whenever vectors for the same text would change.
	Name string
	// Version is the human-readable plugin release.
	Version string
	// Description is a one-line summary for operators.
	Description string
	// Dimensions is the length of every vector.
	Dimensions int
	// MaxBatch is the largest number of texts per Embed call.
	MaxBatch int
	// MaxInputBytes is the largest text in bytes; 0 means unlimited.
	MaxInputBytes int
	// SuggestedFoldThreshold is the cosine similarity in (0, 1] at or above
	// which two texts are the same fact for this embedder.
	SuggestedFoldThreshold float64
}

// Validate reports the first way in which i breaks the protocol contract.
// The SDK applies it on both sides of the wire: to what an implementation's
// Describe returns and to every Describe response the host receives.
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

// Embedder turns texts into vectors. Implementations must be safe for
// concurrent use and deterministic: the same texts under the same Info.Name
// must give the same vectors.
type Embedder interface {
	// Describe returns the embedder's identity and limits. It must not
	// change during the life of a process.
	Describe(ctx context.Context) (Info, error)
	// Embed returns one vector of Info.Dimensions finite components per
	// text, in order: vectors[i] embeds texts[i] whatever else is in the
	// batch. An empty batch returns an empty result and no error. Once ctx
	// is done, Embed returns promptly, with an error wrapping ctx.Err()
	// unless it has already finished.
	Embed(ctx context.Context, purpose Purpose, texts []string) ([][]float32, error)
	// Health returns nil when Embed is expected to succeed, or an error
	// explaining why not.
	Health(ctx context.Context) error
}

// The errors the host's Embedder returns, for errors.Is. They are the
// kind-neutral errors of sdk/plugin (ErrUnavailable is
// plugin.ErrUnavailable), so a host can check them for any plugin kind.
var (
	// ErrUnimplemented means the plugin does not implement the called RPC,
	// for instance an older plugin that predates it. Callers should degrade,
	// not treat the plugin as crashed.
	ErrUnimplemented = plugin.ErrUnimplemented
	// ErrInvalidInput means the request broke a limit or rule (batch larger
	// than MaxBatch, text longer than MaxInputBytes, unknown purpose). It is
	// permanent. Implementations may return errors wrapping it; they reach
	// the host as ErrInvalidInput too.
	ErrInvalidInput = plugin.ErrInvalidInput
	// ErrUnavailable means the plugin process could not be reached (it
	// exited or the connection broke). The host restarts the plugin.
	ErrUnavailable = plugin.ErrUnavailable
	// ErrUnhealthy is returned by the client's Health when the plugin
	// reports itself not ready; the plugin's reason follows it.
	ErrUnhealthy = plugin.ErrUnhealthy
)
