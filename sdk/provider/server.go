package provider

import (
	"context"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
	"github.com/memhost/memhost/sdk/internal/rpcerr"
)

// registerServer serves impl as the memhost.v1.Provider service on s.
func registerServer(s *grpc.Server, impl Provider, logger hclog.Logger) {
	memhostv1.RegisterProviderServer(s, &server{impl: impl, logger: logger})
}

// server adapts a Provider to the generated gRPC service, holding requests
// and the implementation's answers to the protocol.
type server struct {
	memhostv1.UnimplementedProviderServer
	impl   Provider
	logger hclog.Logger
}

var _ memhostv1.ProviderServer = (*server)(nil)

func (s *server) Describe(ctx context.Context, _ *memhostv1.ProviderDescribeRequest) (_ *memhostv1.ProviderDescribeResponse, err error) {
	defer rpcerr.Recover(s.logger, "provider Describe", &err)
	info, err := s.impl.Describe(ctx)
	if err != nil {
		return nil, rpcerr.ToStatus(err)
	}
	if err := info.Validate(); err != nil {
		return nil, status.Errorf(codes.Internal, "provider Describe: implementation returned invalid info: %v", err)
	}
	return infoToProto(info), nil
}

func (s *server) Prepare(ctx context.Context, req *memhostv1.PrepareRequest) (_ *memhostv1.PrepareResponse, err error) {
	spawn := spawnFromProto(req.GetSpawn())
	if err := spawn.Validate(); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	defer rpcerr.Recover(s.logger, "provider Prepare", &err)
	plan, err := s.impl.Prepare(ctx, spawn)
	if err != nil {
		return nil, rpcerr.ToStatus(err)
	}
	if err := plan.Validate(spawn); err != nil {
		return nil, status.Errorf(codes.Internal, "provider Prepare: implementation returned an invalid plan: %v", err)
	}
	return planToProto(plan), nil
}

func (s *server) Finish(ctx context.Context, req *memhostv1.FinishRequest) (_ *memhostv1.FinishResponse, err error) {
	ended := endedFromProto(req)
	if err := ended.Spawn.Validate(); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	defer rpcerr.Recover(s.logger, "provider Finish", &err)
	sess, err := s.impl.Finish(ctx, ended)
	if err != nil {
		return nil, rpcerr.ToStatus(err)
	}
	if err := sess.Validate(); err != nil {
		return nil, status.Errorf(codes.Internal, "provider Finish: implementation returned an invalid session: %v", err)
	}
	return &memhostv1.FinishResponse{SessionId: sess.ID, Transcript: sess.Transcript}, nil
}

func (s *server) Health(ctx context.Context, _ *memhostv1.ProviderHealthRequest) (*memhostv1.ProviderHealthResponse, error) {
	ok, msg, err := rpcerr.Health(ctx, s.logger, "provider Health", s.impl.Health)
	if err != nil {
		return nil, err
	}
	return &memhostv1.ProviderHealthResponse{Ok: ok, Message: msg}, nil
}

func (s *server) Connect(ctx context.Context, req *memhostv1.ConnectRequest) (_ *memhostv1.ConnectResponse, err error) {
	c, ok := s.impl.(Connector)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "provider Connect: this provider cannot connect its CLI")
	}
	r := connectRequestFromProto(req)
	if err := r.Validate(); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	defer rpcerr.Recover(s.logger, "provider Connect", &err)
	conn, err := c.Connect(ctx, r)
	if err != nil {
		return nil, rpcerr.ToStatus(err)
	}
	if err := conn.Validate(); err != nil {
		return nil, status.Errorf(codes.Internal, "provider Connect: implementation returned an invalid plan: %v", err)
	}
	return connectionToProto(conn), nil
}

// Task answers by the declared TaskRules when Describe has them, so that the
// RPC and memhost's in-process reading of the rules never disagree; else by
// the provider's Tasker.
func (s *server) Task(ctx context.Context, req *memhostv1.TaskRequest) (_ *memhostv1.TaskResponse, err error) {
	defer rpcerr.Recover(s.logger, "provider Task", &err)
	info, err := s.impl.Describe(ctx)
	if err != nil {
		return nil, rpcerr.ToStatus(err)
	}
	var t Tasker
	switch tk, ok := s.impl.(Tasker); {
	case info.Task != nil:
		t = *info.Task
	case ok:
		t = tk
	default:
		return nil, status.Error(codes.Unimplemented, "provider Task: this provider does not read its CLI's prompt argument")
	}
	task, err := t.Task(ctx, req.GetArgs())
	if err != nil {
		return nil, rpcerr.ToStatus(err)
	}
	return &memhostv1.TaskResponse{Task: task}, nil
}

func (s *server) Transcript(ctx context.Context, req *memhostv1.TranscriptRequest) (_ *memhostv1.TranscriptResponse, err error) {
	t, ok := s.impl.(TranscriptReader)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "provider Transcript: this provider reads no transcripts")
	}
	r := transcriptRequestFromProto(req)
	if err := r.Validate(); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	defer rpcerr.Recover(s.logger, "provider Transcript", &err)
	tr, err := t.Transcript(ctx, r)
	if err != nil {
		return nil, rpcerr.ToStatus(err)
	}
	return transcriptToProto(tr.bounded(r)), nil
}
