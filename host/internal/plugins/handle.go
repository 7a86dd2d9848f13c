package plugins

import "context"

// Handle is the host's typed grip on one supervised plugin of the kind KindAdapter[K, T, I]
// runs: its calls reach the process's T through Plugin.Call (deadline, restarts, generic
// errors). A kind's own handle (embedders.Handle, say) embeds it and adds the kind's calls,
// each held to the protocol on top of Call.
type Handle[T Described[I], I Info] struct {
	p *Plugin
}

// Find returns the handle of the plugin of this kind that answers to name. See
// Supervisor.Find.
func (a KindAdapter[K, T, I]) Find(s *Supervisor, name string) (Handle[T, I], error) {
	p, err := s.Find(a.Kind(), name)
	if err != nil {
		return Handle[T, I]{}, err
	}
	return Handle[T, I]{p: p}, nil
}

// List returns a handle for every plugin of this kind that started at least once, whatever
// its current state, in start order.
func (a KindAdapter[K, T, I]) List(s *Supervisor) []Handle[T, I] {
	ps := s.Plugins(a.Kind())
	out := make([]Handle[T, I], len(ps))
	for i, p := range ps {
		out[i] = Handle[T, I]{p: p}
	}
	return out
}

// Info is what the plugin's Describe reported at its latest start. What its kind counts as
// its name and shape never changes while the host runs: a restart that reports others is
// refused.
func (h Handle[T, I]) Info() I {
	info, _ := h.p.Identity().Detail.(I)
	return info
}

// Binary is the plugin's file name, e.g. memhost-embedder-bm25.
func (h Handle[T, I]) Binary() string { return h.p.Status().Binary }

// Path is the plugin binary.
func (h Handle[T, I]) Path() string { return h.p.Path() }

// State is the plugin's current life-cycle state.
func (h Handle[T, I]) State() State { return h.p.State() }

// Status is a full snapshot of the plugin.
func (h Handle[T, I]) Status() Status { return h.p.Status() }

// Instance is the configured table ([embedders.NAME], say) the plugin runs, "" for a plugin
// started as found.
func (h Handle[T, I]) Instance() string { return h.p.Instance() }

// Describe asks the running process to describe itself.
func (h Handle[T, I]) Describe(ctx context.Context) (I, error) {
	var info I
	err := h.Call(ctx, "Describe", func(ctx context.Context, v T) (err error) {
		info, err = v.Describe(ctx)
		return err
	})
	return info, err
}

// Health calls the plugin's Health.
func (h Handle[T, I]) Health(ctx context.Context) error {
	return h.Call(ctx, "Health", func(ctx context.Context, v T) error { return v.Health(ctx) })
}

// Call runs fn with the process's T as Plugin.Call does (method names the call in metrics
// and errors).
func (h Handle[T, I]) Call(ctx context.Context, method string, fn func(ctx context.Context, v T) error) error {
	return h.p.Call(ctx, method, func(ctx context.Context, raw any) error {
		v, err := dispensed[T](raw)
		if err != nil {
			return err
		}
		return fn(ctx, v)
	})
}
