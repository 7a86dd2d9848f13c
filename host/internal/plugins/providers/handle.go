package providers

import (
	"context"
	"errors"
	"fmt"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/provider"
)

// Handle is how memhost uses a provider plugin: a provider.Provider whose
// calls go through the supervisor (deadline, restart, generic errors). Info,
// Describe, Health, Status and the rest are plugins.Handle's.
type Handle struct {
	plugins.Handle[provider.Provider, provider.Info]
}

var _ provider.Provider = (*Handle)(nil)

// Find returns the provider that answers to name: the CLI it reports
// ("claude"), else its binary's file name ("memhost-provider-claude") or the
// name part of that. See plugins.Supervisor.Find.
func Find(s *plugins.Supervisor, name string) (*Handle, error) {
	h, err := Adapter{}.Find(s, name)
	if err != nil {
		return nil, err
	}
	return &Handle{h}, nil
}

// Prepare asks how to start the CLI for s.
func (h *Handle) Prepare(ctx context.Context, s provider.Spawn) (provider.Plan, error) {
	var plan provider.Plan
	err := h.Call(ctx, "Prepare", func(ctx context.Context, p provider.Provider) (err error) {
		plan, err = p.Prepare(ctx, s)
		return err
	})
	return plan, err
}

// Finish tells the provider the session ended.
func (h *Handle) Finish(ctx context.Context, e provider.Ended) (provider.Session, error) {
	var sess provider.Session
	err := h.Call(ctx, "Finish", func(ctx context.Context, p provider.Provider) (err error) {
		sess, err = p.Finish(ctx, e)
		return err
	})
	return sess, err
}

var _ provider.Connector = (*Handle)(nil)

// Connect asks the provider for the plan of connecting its CLI (memhost connect). A provider
// built before the Connect RPC cannot answer it, and memhost keeps no copy of any CLI's files
// and commands to fall back on: connecting it asks for a rebuilt plugin.
func (h *Handle) Connect(ctx context.Context, r provider.ConnectRequest) (provider.Connection, error) {
	c, err := callOptional(ctx, h, "Connect", "the plugin cannot connect its CLI", func(ctx context.Context, conn provider.Connector) (provider.Connection, error) {
		return conn.Connect(ctx, r)
	})
	if errors.Is(err, provider.ErrUnimplemented) {
		return provider.Connection{}, fmt.Errorf("provider %s (%s) is too old to connect its CLI; rebuild it", h.Info().Name, h.Status().Binary)
	}
	return c, err
}

var _ provider.Tasker = (*Handle)(nil)

// Task asks the provider for the prompt the CLI's arguments carry. A provider built before the
// Task RPC knows none: "" and no error, so the session gets the query-less banner.
func (h *Handle) Task(ctx context.Context, args []string) (string, error) {
	task, err := callOptional(ctx, h, "Task", "the plugin reads no tasks", func(ctx context.Context, t provider.Tasker) (string, error) {
		return t.Task(ctx, args)
	})
	if errors.Is(err, provider.ErrUnimplemented) {
		return "", nil
	}
	return task, err
}

var _ provider.TranscriptReader = (*Handle)(nil)

// Transcript asks the provider for a session's turns read from its CLI's transcript. A
// provider built before the Transcript RPC answers an error wrapping ErrUnimplemented: it
// reads no transcripts, and the session's metadata is journalled alone.
func (h *Handle) Transcript(ctx context.Context, r provider.TranscriptRequest) (provider.Transcript, error) {
	return callOptional(ctx, h, "Transcript", "the plugin reads no transcripts", func(ctx context.Context, tr provider.TranscriptReader) (provider.Transcript, error) {
		return tr.Transcript(ctx, r)
	})
}

// callOptional runs method through the supervisor on the provider's optional interface I (an
// RPC added after the first providers shipped); a provider without it is an error wrapping
// ErrUnimplemented that says what it lacks, for the caller to map to its fallback.
func callOptional[I, T any](ctx context.Context, h *Handle, method, lacks string, fn func(context.Context, I) (T, error)) (T, error) {
	var out T
	err := h.Call(ctx, method, func(ctx context.Context, p provider.Provider) error {
		impl, ok := p.(I)
		if !ok {
			return fmt.Errorf("%w: %s", provider.ErrUnimplemented, lacks)
		}
		var err error
		out, err = fn(ctx, impl)
		return err
	})
	return out, err
}
