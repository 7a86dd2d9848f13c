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
	memhostv1.RegisterEmbedderServer(s, &server{Served: pluginkind.NewServed[Embedder, Info]("embedder", impl, logger, rpcerr.ToStatus)})
}

// server adapts an Embedder to the generated gRPC service, enforcing the
// limits the implementation declared (Served.Info) before calling it.
type server struct {
	memhostv1.UnimplementedEmbedderServer
	*pluginkind.Served[Embedder, Info]
}

var _ memhostv1.EmbedderServer = (*server)(nil)

func (s *server) Describe(ctx context.Context, _ *memhostv1.DescribeRequest) (*memhostv1.DescribeResponse, error) {
	info, err := s.Info(ctx)
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
	info, err := s.Info(ctx)
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

	defer rpcerr.Recover(s.Logger, "embedder Embed", &err)
	vecs, err := s.Impl.Embed(ctx, purpose, texts)
	if err != nil {
		return nil, rpcerr.ToStatus(err)
	}
	return vectorsToProto(vecs), nil
}

func (s *server) Health(ctx context.Context, _ *memhostv1.HealthRequest) (*memhostv1.HealthResponse, error) {
	ok, msg, err := s.Healthy(ctx)
	if err != nil {
		return nil, err
	}
	return &memhostv1.HealthResponse{Ok: ok, Message: msg}, nil
}
