package embedder

import (
	"context"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
	"github.com/memhost/memhost/sdk/internal/pluginkind"
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
	info pluginkind.Described[Info]
}

var _ memhostv1.EmbedderServer = (*server)(nil)

func (s *server) describe(ctx context.Context) (Info, error) {
	return s.info.Get(ctx, s.logger, "embedder Describe", s.impl.Describe, rpcerr.ToStatus)
}

func (s *server) Describe(ctx context.Context, _ *memhostv1.DescribeRequest) (*memhostv1.DescribeResponse, error) {
	info, err := s.describe(ctx)
	if err != nil {
		return nil, err
	}
	return infoToProto(info), nil
}

func (s *server) Embed(ctx context.Context, req *memhostv1.EmbedRequest) (_ *memhostv1.EmbedResponse, err error) {
	purpose, err := purposeFromProto(req.GetPurpose())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
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
	return vectorsToProto(vecs), nil
}

func (s *server) Health(ctx context.Context, _ *memhostv1.HealthRequest) (*memhostv1.HealthResponse, error) {
	ok, msg, err := rpcerr.Health(ctx, s.logger, "embedder Health", s.impl.Health)
	if err != nil {
		return nil, err
	}
	return &memhostv1.HealthResponse{Ok: ok, Message: msg}, nil
}
