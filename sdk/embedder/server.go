package embedder

import (
	"context"
	"sync"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
	"github.com/memhost/memhost/sdk/internal/rpcerr"
)

// registerServer serves impl as the memhost.v1.Embedder service on s.
func registerServer(s *grpc.Server, impl Embedder, logger hclog.Logger) {
	memhostv1.RegisterEmbedderServer(s, &server{impl: impl, logger: logger})
}

// server adapts an Embedder to the generated gRPC service, enforcing the
// limits the implementation declared before calling it.
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

var _ memhostv1.EmbedderServer = (*server)(nil)

func (s *server) describe(ctx context.Context) (info Info, err error) {
	s.mu.Lock()
	cached := s.info
	s.mu.Unlock()
	if cached != nil {
		return *cached, nil
	}
	defer rpcerr.Recover(s.logger, "embedder Describe", &err)
	info, err = s.impl.Describe(ctx)
	if err != nil {
		return Info{}, rpcerr.ToStatus(err)
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

	defer rpcerr.Recover(s.logger, "embedder Embed", &err)
	vecs, err := s.impl.Embed(ctx, purpose, texts)
	if err != nil {
		return nil, rpcerr.ToStatus(err)
	}
	resp := &memhostv1.EmbedResponse{Vectors: make([]*memhostv1.EmbedResponse_Vector, len(vecs))}
	for i, v := range vecs {
		resp.Vectors[i] = &memhostv1.EmbedResponse_Vector{Values: v}
	}
	return resp, nil
}

func (s *server) Health(ctx context.Context, _ *memhostv1.HealthRequest) (_ *memhostv1.HealthResponse, err error) {
	defer rpcerr.Recover(s.logger, "embedder Health", &err)
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
