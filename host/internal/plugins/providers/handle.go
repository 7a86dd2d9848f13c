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
	var c provider.Connection
	err := h.Call(ctx, "Connect", func(ctx context.Context, p provider.Provider) error {
		conn, ok := p.(provider.Connector)
		if !ok {
			return fmt.Errorf("%w: the plugin cannot connect its CLI", provider.ErrUnimplemented)
		}
		var err error
		c, err = conn.Connect(ctx, r)
		return err
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
	var task string
	err := h.Call(ctx, "Task", func(ctx context.Context, p provider.Provider) error {
		t, ok := p.(provider.Tasker)
		if !ok {
			return nil
		}
		var err error
		task, err = t.Task(ctx, args)
		return err
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
	var t provider.Transcript
	err := h.Call(ctx, "Transcript", func(ctx context.Context, p provider.Provider) error {
		tr, ok := p.(provider.TranscriptReader)
		if !ok {
			return fmt.Errorf("%w: the plugin reads no transcripts", provider.ErrUnimplemented)
		}
		var err error
		t, err = tr.Transcript(ctx, r)
		return err
	})
	return t, err
}
