package worker

import (
	"context"
	"fmt"

	"google.golang.org/grpc"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
	"github.com/memhost/memhost/sdk/internal/pluginkind"
	"github.com/memhost/memhost/sdk/internal/rpcerr"
)

// newClient is the Worker the host holds for the plugin at the other end of
// c.
func newClient(c *grpc.ClientConn) Worker { return &client{rpc: memhostv1.NewWorkerClient(c)} }

// client adapts the generated gRPC client to Worker for the host: it holds
// every task to the worker's Info before sending it and every answer to its
// task (CheckAnswer) before returning it, so an answer that fails never
// reaches the caller.
type client struct {
	rpc memhostv1.WorkerClient

	// info is the last valid Describe; Run needs it to check tasks and
	// fetches it on first use.
	info pluginkind.Kept[Info]
}

var _ Worker = (*client)(nil)

func (c *client) Describe(ctx context.Context) (Info, error) {
	return c.info.Describe(ctx, "worker Describe", func(ctx context.Context) (Info, error) {
		resp, err := c.rpc.Describe(ctx, &memhostv1.WorkerDescribeRequest{})
		if err != nil {
			return Info{}, fromStatus(ctx, "worker Describe", err)
		}
		return infoFromProto(resp), nil
	})
}

func (c *client) Run(ctx context.Context, t Task) (Answer, error) {
	if d, ok := ctx.Deadline(); ok && (t.Deadline.IsZero() || d.Before(t.Deadline)) {
		t.Deadline = d
	}
	info, err := c.info.Get(ctx, c.Describe)
	if err != nil {
		return Answer{}, err
	}
	if err := t.Validate(info); err != nil {
		return Answer{}, fmt.Errorf("worker Run: %w: %w", ErrInvalidInput, err)
	}
	ctx, cancel := context.WithDeadline(ctx, t.Deadline)
	defer cancel()
	resp, err := c.rpc.Run(ctx, taskToProto(t))
	if err != nil {
		return Answer{}, fromStatus(ctx, "worker Run", err)
	}
	a, err := t.CheckAnswer(answerFromProto(resp))
	if err != nil {
		return Answer{}, fmt.Errorf("worker Run: %w", err)
	}
	return a, nil
}

func (c *client) Health(ctx context.Context) error {
	resp, err := c.rpc.Health(ctx, &memhostv1.WorkerHealthRequest{})
	if err != nil {
		return fromStatus(ctx, "worker Health", err)
	}
	return rpcerr.Healthy("worker Health", resp.GetOk(), resp.GetMessage())
}
