package worker

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

// registerServer serves impl as the memhost.v1.Worker service on s.
func registerServer(s *grpc.Server, impl Worker, logger hclog.Logger) {
	memhostv1.RegisterWorkerServer(s, &server{impl: impl, logger: logger})
}

// server adapts a Worker to the generated gRPC service, holding every task
// to the worker's Info before calling it and every answer to its task
// before sending it.
type server struct {
	memhostv1.UnimplementedWorkerServer
	impl   Worker
	logger hclog.Logger

	// info caches the first valid Describe, which must be constant for the
	// life of the process, so that every Run is checked without another
	// call into the implementation.
	mu   sync.Mutex
	info *Info
}

var _ memhostv1.WorkerServer = (*server)(nil)

func (s *server) describe(ctx context.Context) (info Info, err error) {
	s.mu.Lock()
	cached := s.info
	s.mu.Unlock()
	if cached != nil {
		return *cached, nil
	}
	defer rpcerr.Recover(s.logger, "worker Describe", &err)
	info, err = s.impl.Describe(ctx)
	if err != nil {
		return Info{}, toStatus(err)
	}
	if err := info.Validate(); err != nil {
		return Info{}, status.Errorf(codes.Internal, "worker Describe: implementation returned invalid info: %v", err)
	}
	s.mu.Lock()
	s.info = &info
	s.mu.Unlock()
	return info, nil
}

func (s *server) Describe(ctx context.Context, _ *memhostv1.WorkerDescribeRequest) (*memhostv1.WorkerDescribeResponse, error) {
	info, err := s.describe(ctx)
	if err != nil {
		return nil, err
	}
	return infoToProto(info), nil
}

func (s *server) Run(ctx context.Context, req *memhostv1.RunRequest) (_ *memhostv1.RunResponse, err error) {
	info, err := s.describe(ctx)
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

	defer rpcerr.Recover(s.logger, "worker Run", &err)
	a, err := s.impl.Run(ctx, t)
	if err != nil {
		return nil, toStatus(err)
	}
	// An implementation that answers in breach of the protocol learns it
	// here, in its own log, rather than from a host that refused it.
	if a, err = t.CheckAnswer(a); err != nil {
		s.logger.Warn("implementation answered in breach of the protocol", "kind", t.Kind, "error", err)
		return nil, toStatus(err)
	}
	return answerToProto(a), nil
}

func (s *server) Health(ctx context.Context, _ *memhostv1.WorkerHealthRequest) (_ *memhostv1.WorkerHealthResponse, err error) {
	defer rpcerr.Recover(s.logger, "worker Health", &err)
	if herr := s.impl.Health(ctx); herr != nil {
		// Cancellation is the caller giving up, not the worker being
		// unhealthy; report it as such.
		if ctx.Err() != nil {
			return nil, status.FromContextError(ctx.Err()).Err()
		}
		return &memhostv1.WorkerHealthResponse{Ok: false, Message: herr.Error()}, nil
	}
	return &memhostv1.WorkerHealthResponse{Ok: true}, nil
}
