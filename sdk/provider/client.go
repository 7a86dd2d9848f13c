package provider

import (
	"context"
	"fmt"

	"google.golang.org/grpc"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
	"github.com/memhost/memhost/sdk/internal/rpcerr"
)

// newClient is the Provider memhost holds for the plugin at the other end
// of c.
func newClient(c *grpc.ClientConn) Provider { return &client{rpc: memhostv1.NewProviderClient(c)} }

// client adapts the generated gRPC client to Provider for memhost,
// validating what it sends and every answer against the protocol.
type client struct {
	rpc memhostv1.ProviderClient
}

var _ Provider = (*client)(nil)

func (c *client) Describe(ctx context.Context) (Info, error) {
	resp, err := c.rpc.Describe(ctx, &memhostv1.ProviderDescribeRequest{})
	if err != nil {
		return Info{}, rpcerr.FromStatus(ctx, "provider Describe", err)
	}
	info := infoFromProto(resp)
	if err := info.Validate(); err != nil {
		return Info{}, fmt.Errorf("provider Describe: plugin returned invalid info: %w", err)
	}
	return info, nil
}

func (c *client) Prepare(ctx context.Context, s Spawn) (Plan, error) {
	if err := s.Validate(); err != nil {
		return Plan{}, fmt.Errorf("provider Prepare: %w: %w", ErrInvalidInput, err)
	}
	resp, err := c.rpc.Prepare(ctx, &memhostv1.PrepareRequest{Spawn: spawnToProto(s)})
	if err != nil {
		return Plan{}, rpcerr.FromStatus(ctx, "provider Prepare", err)
	}
	plan := planFromProto(resp)
	if err := plan.Validate(s); err != nil {
		return Plan{}, fmt.Errorf("provider Prepare: plugin returned an invalid plan: %w", err)
	}
	return plan, nil
}

func (c *client) Finish(ctx context.Context, e Ended) (Session, error) {
	if err := e.Spawn.Validate(); err != nil {
		return Session{}, fmt.Errorf("provider Finish: %w: %w", ErrInvalidInput, err)
	}
	resp, err := c.rpc.Finish(ctx, endedToProto(e))
	if err != nil {
		return Session{}, rpcerr.FromStatus(ctx, "provider Finish", err)
	}
	sess := Session{ID: resp.GetSessionId(), Transcript: resp.GetTranscript()}
	if err := sess.Validate(); err != nil {
		return Session{}, fmt.Errorf("provider Finish: plugin returned an invalid session: %w", err)
	}
	return sess, nil
}

func (c *client) Health(ctx context.Context) error {
	resp, err := c.rpc.Health(ctx, &memhostv1.ProviderHealthRequest{})
	if err != nil {
		return rpcerr.FromStatus(ctx, "provider Health", err)
	}
	return rpcerr.Healthy("provider Health", resp.GetOk(), resp.GetMessage())
}

var _ Connector = (*client)(nil)

// Connect asks the plugin for the plan of connecting its CLI. A plugin built
// before the Connect RPC answers ErrUnimplemented.
func (c *client) Connect(ctx context.Context, r ConnectRequest) (Connection, error) {
	if err := r.Validate(); err != nil {
		return Connection{}, fmt.Errorf("provider Connect: %w: %w", ErrInvalidInput, err)
	}
	resp, err := c.rpc.Connect(ctx, connectRequestToProto(r))
	if err != nil {
		return Connection{}, rpcerr.FromStatus(ctx, "provider Connect", err)
	}
	conn := connectionFromProto(resp)
	if err := conn.Validate(); err != nil {
		return Connection{}, fmt.Errorf("provider Connect: plugin returned an invalid plan: %w", err)
	}
	return conn, nil
}

var _ Tasker = (*client)(nil)

// Task asks the plugin for the prompt args carry. A plugin built before the
// Task RPC answers ErrUnimplemented.
func (c *client) Task(ctx context.Context, args []string) (string, error) {
	resp, err := c.rpc.Task(ctx, &memhostv1.TaskRequest{Args: args})
	if err != nil {
		return "", rpcerr.FromStatus(ctx, "provider Task", err)
	}
	return resp.GetTask(), nil
}

var _ TranscriptReader = (*client)(nil)

// Transcript asks the plugin for the session's turns. A plugin built before the Transcript RPC
// answers ErrUnimplemented. memhost holds the turns to the request's window itself: a plugin
// in another language may not drop the turns outside it.
func (c *client) Transcript(ctx context.Context, r TranscriptRequest) (Transcript, error) {
	if err := r.Validate(); err != nil {
		return Transcript{}, fmt.Errorf("provider Transcript: %w: %w", ErrInvalidInput, err)
	}
	resp, err := c.rpc.Transcript(ctx, transcriptRequestToProto(r))
	if err != nil {
		return Transcript{}, rpcerr.FromStatus(ctx, "provider Transcript", err)
	}
	return transcriptFromProto(resp), nil
}
