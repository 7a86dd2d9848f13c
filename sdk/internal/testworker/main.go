// Command testworker is a test-only worker plugin that breaks the protocol
// on purpose, below the SDK's own checks (it serves the generated gRPC
// service directly, as a plugin in another language would), so that tests
// of the SDK's client and of the host can show that no answer is trusted.
// Its behaviour follows its file name, memhost-worker-<mode>:
//
//   - notjson: a task with a schema gets prose instead of JSON;
//   - schema: a task with a schema gets JSON that does not satisfy it;
//   - overbudget: every answer reports one token more than the budget;
//   - stdout: every Run writes a line to stdout, which carries the handshake;
//   - anything else: a well-behaved worker.
//
// Otherwise it answers {"summary": "ok"} to a task with a schema and "ok"
// to one without, within the budget.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
	"github.com/memhost/memhost/sdk/internal/pluginkind"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/worker"
)

func main() {
	mode := strings.TrimPrefix(filepath.Base(os.Args[0]), "memhost-worker-")
	// The kind's glue with a raw service in place of the SDK's server
	// adapter; the implementation it is given is never called.
	k := pluginkind.New(plugin.KindWorker, func(s *grpc.Server, _ worker.Worker, _ hclog.Logger) {
		memhostv1.RegisterWorkerServer(s, raw{mode: mode})
	}, func(*grpc.ClientConn) worker.Worker { return nil })
	if err := k.Serve(unused{}, plugin.ServeOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, "testworker:", err)
		os.Exit(1)
	}
}

type raw struct {
	memhostv1.UnimplementedWorkerServer
	mode string
}

func (r raw) Describe(context.Context, *memhostv1.WorkerDescribeRequest) (*memhostv1.WorkerDescribeResponse, error) {
	return &memhostv1.WorkerDescribeResponse{
		Name: "bad-" + r.mode, Version: "1", Model: "none", MaxInputBytes: 1 << 16,
		Locality:  memhostv1.Locality_LOCALITY_LOCAL,
		TaskKinds: []string{"merge", "conflicts", "session_summary", "extract", "plan_drift", "gatekeeper"},
	}, nil
}

func (r raw) Run(ctx context.Context, req *memhostv1.RunRequest) (*memhostv1.RunResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, status.FromContextError(err).Err()
	}
	if req.GetTokenBudget() < 10 {
		return nil, status.Error(codes.OutOfRange, "budget too small")
	}
	text := "ok"
	if req.GetJsonSchema() != "" {
		text = `{"summary": "ok"}`
		switch r.mode {
		case "notjson":
			text = "Sure! The summary is: ok"
		case "schema":
			text = `{"summary": 42}`
		}
	}
	usage := &memhostv1.TokenUsage{InputTokens: 5, OutputTokens: 2}
	if r.mode == "overbudget" {
		usage.OutputTokens = req.GetTokenBudget() - usage.InputTokens + 1
	}
	if r.mode == "stdout" {
		fmt.Println("testworker: a line on stdout")
	}
	return &memhostv1.RunResponse{Text: text, Usage: usage, Model: "none"}, nil
}

func (raw) Health(context.Context, *memhostv1.WorkerHealthRequest) (*memhostv1.WorkerHealthResponse, error) {
	return &memhostv1.WorkerHealthResponse{Ok: true}, nil
}

// unused stands for the implementation the raw service replaces.
type unused struct{ worker.Worker }
