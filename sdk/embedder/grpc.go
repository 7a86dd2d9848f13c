package embedder

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
	"github.com/memhost/memhost/sdk/internal/registry"
	"github.com/memhost/memhost/sdk/plugin"
)

func init() {
	// Linking this package in makes the embedder kind part of
	// plugin.VersionedPlugins, which is how the host learns about it.
	registry.Register(plugin.KindEmbedder, &GRPCPlugin{})
}

// Serve runs e as an embedder plugin process. It is the whole main of a
// plugin and does not return while the host is connected.
func Serve(e Embedder) {
	plugin.Serve(plugin.KindEmbedder, &GRPCPlugin{Impl: e, Logger: plugin.Logger(plugin.KindEmbedder)})
}

// GRPCPlugin is the go-plugin glue for the embedder kind. In a plugin process
// Impl is served; in the host, GRPCClient returns an Embedder that calls the
// plugin. Only gRPC is supported.
type GRPCPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	// Impl is the embedder served by a plugin process; unused by the host.
	Impl Embedder
	// Logger receives panics recovered from Impl, with stack traces. Nil
	// discards them (the caller still gets a codes.Internal error).
	Logger hclog.Logger
}

var _ goplugin.GRPCPlugin = (*GRPCPlugin)(nil)

// GRPCServer registers Impl with the plugin's gRPC server.
func (p *GRPCPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	if p.Impl == nil {
		return errors.New("embedder plugin: Impl is nil")
	}
	logger := p.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	memhostv1.RegisterEmbedderServer(s, &server{impl: p.Impl, logger: logger})
	return nil
}

// GRPCClient returns an Embedder backed by the plugin at the other end of c.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &client{rpc: memhostv1.NewEmbedderClient(c)}, nil
}

// server adapts an Embedder to the generated gRPC service.
type server struct {
	memhostv1.UnimplementedEmbedderServer
	impl   Embedder
	logger hclog.Logger

	// info caches the first successful Describe so that every Embed can
	// enforce the limits without another call into the implementation;
	// Describe must be constant for the life of the process anyway.
	mu   sync.Mutex
	info *Info
}

// recoverPanic turns a panic in the implementation into a codes.Internal
// error so that one bad input does not take the plugin process (and every
// in-flight call) down without a trace.
func (s *server) recoverPanic(method string, err *error) {
	if r := recover(); r != nil {
		s.logger.Error("embedder implementation panicked", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		*err = status.Errorf(codes.Internal, "embedder %s panicked: %v", method, r)
	}
}

func (s *server) describe(ctx context.Context) (info Info, err error) {
	s.mu.Lock()
	cached := s.info
	s.mu.Unlock()
	if cached != nil {
		return *cached, nil
	}
	defer s.recoverPanic("Describe", &err)
	info, err = s.impl.Describe(ctx)
	if err != nil {
		return Info{}, toStatus(err)
	}
	if err := info.Validate(); err != nil {
		return Info{}, status.Errorf(codes.Internal, "embedder Describe: implementation returned invalid info: %v", err)
	}
	s.mu.Lock()
	s.info = &info
	s.mu.Unlock()
	return info, nil
}

func (s *server) Describe(ctx context.Context, _ *memhostv1.DescribeRequest) (*memhostv1.DescribeResponse, error) {
	info, err := s.describe(ctx)
	if err != nil {
		return nil, err
	}
	return &memhostv1.DescribeResponse{
		Name:                   info.Name,
		Version:                info.Version,
		Dimensions:             int32(info.Dimensions),
		MaxBatch:               int32(info.MaxBatch),
		MaxInputBytes:          int32(info.MaxInputBytes),
		SuggestedFoldThreshold: info.SuggestedFoldThreshold,
		Description:            info.Description,
	}, nil
}

func (s *server) Embed(ctx context.Context, req *memhostv1.EmbedRequest) (_ *memhostv1.EmbedResponse, err error) {
	var purpose Purpose
	switch req.GetPurpose() {
	case memhostv1.EmbedRequest_PURPOSE_UNSPECIFIED, memhostv1.EmbedRequest_PURPOSE_DOCUMENT:
		purpose = PurposeDocument
	case memhostv1.EmbedRequest_PURPOSE_QUERY:
		purpose = PurposeQuery
	default:
		return nil, status.Errorf(codes.InvalidArgument, "unknown purpose %d", req.GetPurpose())
	}
	info, err := s.describe(ctx)
	if err != nil {
		return nil, err
	}
	texts := req.GetTexts()
	if len(texts) > info.MaxBatch {
		return nil, status.Errorf(codes.InvalidArgument, "batch of %d texts exceeds max batch %d", len(texts), info.MaxBatch)
	}
	if info.MaxInputBytes > 0 {
		for i, t := range texts {
			if len(t) > info.MaxInputBytes {
				return nil, status.Errorf(codes.InvalidArgument, "text %d is %d bytes, exceeds max input bytes %d", i, len(t), info.MaxInputBytes)
			}
		}
	}

	defer s.recoverPanic("Embed", &err)
	vecs, err := s.impl.Embed(ctx, purpose, texts)
	if err != nil {
		return nil, toStatus(err)
	}
	resp := &memhostv1.EmbedResponse{Vectors: make([]*memhostv1.EmbedResponse_Vector, len(vecs))}
	for i, v := range vecs {
		resp.Vectors[i] = &memhostv1.EmbedResponse_Vector{Values: v}
	}
	return resp, nil
}

func (s *server) Health(ctx context.Context, _ *memhostv1.HealthRequest) (_ *memhostv1.HealthResponse, err error) {
	defer s.recoverPanic("Health", &err)
	if herr := s.impl.Health(ctx); herr != nil {
		// Cancellation is the caller giving up, not the embedder being
		// unhealthy; report it as such.
		if ctx.Err() != nil {
			return nil, status.FromContextError(ctx.Err()).Err()
		}
		return &memhostv1.HealthResponse{Ok: false, Message: herr.Error()}, nil
	}
	return &memhostv1.HealthResponse{Ok: true}, nil
}

// toStatus maps an implementation error to a gRPC status so that the client
// can rebuild the matching sentinel or context error.
func toStatus(err error) error {
	if _, ok := status.FromError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return status.FromContextError(err).Err()
	case errors.Is(err, ErrInvalidInput):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, ErrUnimplemented):
		return status.Error(codes.Unimplemented, err.Error())
	default:
		return status.Error(codes.Unknown, err.Error())
	}
}

// client adapts the generated gRPC client to Embedder for the host.
type client struct {
	rpc memhostv1.EmbedderClient

	// dims is the vector length from the last valid Describe; Embed needs it
	// to validate responses and fetches it on first use.
	mu   sync.Mutex
	dims int
}

var _ Embedder = (*client)(nil)

func (c *client) Describe(ctx context.Context) (Info, error) {
	resp, err := c.rpc.Describe(ctx, &memhostv1.DescribeRequest{})
	if err != nil {
		return Info{}, fromStatus(ctx, "Describe", err)
	}
	info := Info{
		Name:                   resp.GetName(),
		Version:                resp.GetVersion(),
		Description:            resp.GetDescription(),
		Dimensions:             int(resp.GetDimensions()),
		MaxBatch:               int(resp.GetMaxBatch()),
		MaxInputBytes:          int(resp.GetMaxInputBytes()),
		SuggestedFoldThreshold: resp.GetSuggestedFoldThreshold(),
	}
	if err := info.Validate(); err != nil {
		return Info{}, fmt.Errorf("embedder Describe: plugin returned invalid info: %w", err)
	}
	c.mu.Lock()
	c.dims = info.Dimensions
	c.mu.Unlock()
	return info, nil
}

func (c *client) dimensions(ctx context.Context) (int, error) {
	c.mu.Lock()
	d := c.dims
	c.mu.Unlock()
	if d > 0 {
		return d, nil
	}
	info, err := c.Describe(ctx)
	if err != nil {
		return 0, err
	}
	return info.Dimensions, nil
}

func (c *client) Embed(ctx context.Context, purpose Purpose, texts []string) ([][]float32, error) {
	var p memhostv1.EmbedRequest_Purpose
	switch purpose {
	case PurposeDocument:
		p = memhostv1.EmbedRequest_PURPOSE_DOCUMENT
	case PurposeQuery:
		p = memhostv1.EmbedRequest_PURPOSE_QUERY
	default:
		return nil, fmt.Errorf("embedder Embed: %w: unknown purpose %v", ErrInvalidInput, purpose)
	}
	dims, err := c.dimensions(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := c.rpc.Embed(ctx, &memhostv1.EmbedRequest{Texts: validUTF8(texts), Purpose: p})
	if err != nil {
		return nil, fromStatus(ctx, "Embed", err)
	}
	vecs := resp.GetVectors()
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder Embed: plugin returned %d vectors for %d texts", len(vecs), len(texts))
	}
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		if n := len(v.GetValues()); n != dims {
			return nil, fmt.Errorf("embedder Embed: vector %d has %d dimensions, Describe promised %d", i, n, dims)
		}
		out[i] = v.GetValues()
	}
	return out, nil
}

func (c *client) Health(ctx context.Context) error {
	resp, err := c.rpc.Health(ctx, &memhostv1.HealthRequest{})
	if err != nil {
		return fromStatus(ctx, "Health", err)
	}
	if !resp.GetOk() {
		return fmt.Errorf("embedder Health: %w: %s", ErrUnhealthy, resp.GetMessage())
	}
	return nil
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

// fromStatus turns a gRPC error into a Go error naming the method and
// wrapping the matching sentinel or context error, so callers can use
// errors.Is without knowing about gRPC.
func fromStatus(ctx context.Context, method string, err error) error {
	// A call cut short by the caller's own context reports the context
	// error, whatever code the transport chose.
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("embedder %s: %w", method, cerr)
	}
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.Canceled:
		// With the caller's context alive, the connection was cancelled under the call: the
		// plugin process is going away.
		return fmt.Errorf("embedder %s: %w: %s", method, ErrUnavailable, st.Message())
	case codes.DeadlineExceeded:
		return fmt.Errorf("embedder %s: %w: %s", method, context.DeadlineExceeded, st.Message())
	case codes.Unimplemented:
		return fmt.Errorf("embedder %s: %w: %s", method, ErrUnimplemented, st.Message())
	case codes.InvalidArgument:
		return fmt.Errorf("embedder %s: %w: %s", method, ErrInvalidInput, st.Message())
	case codes.Unavailable:
		return fmt.Errorf("embedder %s: %w: %s", method, ErrUnavailable, st.Message())
	default:
		return fmt.Errorf("embedder %s: %s: %s", method, st.Code(), st.Message())
	}
}
