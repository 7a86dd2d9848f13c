package worker

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

// registerServer serves impl as the memhost.v1.Worker service on s.
func registerServer(s *grpc.Server, impl Worker, logger hclog.Logger) {
	memhostv1.RegisterWorkerServer(s, &server{Served: pluginkind.NewServed[Worker, Info]("worker", impl, logger, toStatus)})
}

// server adapts a Worker to the generated gRPC service, holding every task
// to the worker's Info (Served.Info) before calling it and every answer to
// its task before sending it.
type server struct {
	memhostv1.UnimplementedWorkerServer
	*pluginkind.Served[Worker, Info]
}

var _ memhostv1.WorkerServer = (*server)(nil)

func (s *server) Describe(ctx context.Context, _ *memhostv1.WorkerDescribeRequest) (*memhostv1.WorkerDescribeResponse, error) {
	info, err := s.Info(ctx)
	if err != nil {
		return nil, err
	}
	return infoToProto(info), nil
}

func (s *server) Run(ctx context.Context, req *memhostv1.RunRequest) (_ *memhostv1.RunResponse, err error) {
	info, err := s.Info(ctx)
	if err != nil {
		return nil, err
	}
	t := taskFromProto(req)
	if err := t.Validate(info); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	// The task's deadline bounds the implementation even when the caller's
	// gRPC deadline is later or missing.
	ctx, cancel := context.WithDeadline(ctx, t.Deadline)
	defer cancel()

	defer rpcerr.Recover(s.Logger, "worker Run", &err)
	a, err := s.Impl.Run(ctx, t)
	if err != nil {
		return nil, toStatus(err)
	}
	// An implementation that answers in breach of the protocol learns it
	// here, in its own log, rather than from a host that refused it.
	if a, err = t.CheckAnswer(a); err != nil {
		s.Logger.Warn("implementation answered in breach of the protocol", "kind", t.Kind, "error", err)
		return nil, toStatus(err)
	}
	return answerToProto(a), nil
}

func (s *server) Health(ctx context.Context, _ *memhostv1.WorkerHealthRequest) (*memhostv1.WorkerHealthResponse, error) {
	ok, msg, err := s.Healthy(ctx)
	if err != nil {
		return nil, err
	}
	return &memhostv1.WorkerHealthResponse{Ok: ok, Message: msg}, nil
}
