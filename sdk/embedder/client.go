package embedder

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/grpc"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
	"github.com/memhost/memhost/sdk/internal/pluginkind"
	"github.com/memhost/memhost/sdk/internal/rpcerr"
)

// newClient is the Embedder the host holds for the plugin at the other end
// of c.
func newClient(c *grpc.ClientConn) Embedder { return &client{rpc: memhostv1.NewEmbedderClient(c)} }

// client adapts the generated gRPC client to Embedder for the host,
// validating every response against the protocol.
type client struct {
	rpc memhostv1.EmbedderClient

	// info is the last valid Describe; Embed needs its vector length to
	// validate responses and fetches it on first use.
	info pluginkind.Kept[Info]
}

var _ Embedder = (*client)(nil)

func (c *client) Describe(ctx context.Context) (Info, error) {
	return c.info.Describe(ctx, "embedder Describe", func(ctx context.Context) (Info, error) {
		resp, err := c.rpc.Describe(ctx, &memhostv1.DescribeRequest{})
		if err != nil {
			return Info{}, rpcerr.FromStatus(ctx, "embedder Describe", err)
		}
		return infoFromProto(resp), nil
	})
}

func (c *client) Embed(ctx context.Context, purpose Purpose, texts []string) ([][]float32, error) {
	p, err := purposeToProto(purpose)
	if err != nil {
		return nil, fmt.Errorf("embedder Embed: %w", err)
	}
	info, err := c.info.Get(ctx, c.Describe)
	if err != nil {
		return nil, err
	}
	dims := info.Dimensions
	resp, err := c.rpc.Embed(ctx, &memhostv1.EmbedRequest{Texts: validUTF8(texts), Purpose: p})
	if err != nil {
		return nil, rpcerr.FromStatus(ctx, "embedder Embed", err)
	}
	vecs := vectorsFromProto(resp)
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder Embed: plugin returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != dims {
			return nil, fmt.Errorf("embedder Embed: vector %d has %d dimensions, Describe promised %d", i, len(v), dims)
		}
	}
	return vecs, nil
}

func (c *client) Health(ctx context.Context) error {
	resp, err := c.rpc.Health(ctx, &memhostv1.HealthRequest{})
	if err != nil {
		return rpcerr.FromStatus(ctx, "embedder Health", err)
	}
	return rpcerr.Healthy("embedder Health", resp.GetOk(), resp.GetMessage())
}

// validUTF8 returns texts with invalid UTF-8 sequences replaced by U+FFFD,
// copying only when needed: protobuf refuses to marshal invalid UTF-8 in
// string fields, and one stray byte in a note must not fail a whole batch.
func validUTF8(texts []string) []string {
	out := texts
	for i, t := range texts {
		if utf8.ValidString(t) {
			continue
		}
		if &out[0] == &texts[0] {
			out = slices.Clone(texts)
		}
		out[i] = strings.ToValidUTF8(t, "\uFFFD")
	}
	return out
}
