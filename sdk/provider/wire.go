package provider

import (
	"context"

	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/sdk/internal/providerplugin"
)

func init() {
	// Linking this package in makes the provider kind part of
	// plugin.VersionedPlugins, which is how memhost learns about it, and
	// lets providertest serve an implementation without a process.
	providerplugin.Register(func(impl any) (providerplugin.Provider, bool) {
		p, ok := impl.(Provider)
		return local{p}, ok
	}, public)
}

// serverPlugin is the go-plugin value that serves p.
func serverPlugin(p Provider, logger hclog.Logger) *providerplugin.Plugin {
	return &providerplugin.Plugin{Impl: local{p}, Logger: logger, Public: public}
}

// public is what memhost dispenses for a plugin: a Provider.
func public(c providerplugin.Provider) any { return remote{c} }

// local presents an implementation to the glue, which works on its own
// mirror types (it cannot import this package).
type local struct{ p Provider }

var _ providerplugin.Provider = local{}

func (l local) Describe(ctx context.Context) (providerplugin.Info, error) {
	info, err := l.p.Describe(ctx)
	return providerplugin.Info(info), err
}

func (l local) Prepare(ctx context.Context, s providerplugin.Spawn) (providerplugin.Plan, error) {
	plan, err := l.p.Prepare(ctx, spawnFromLocal(s))
	return planToLocal(plan), err
}

func (l local) Finish(ctx context.Context, e providerplugin.Ended) (providerplugin.Session, error) {
	sess, err := l.p.Finish(ctx, Ended{
		Spawn: spawnFromLocal(e.Spawn), State: e.State, ExitCode: e.ExitCode, StartedAt: e.StartedAt, Duration: e.Duration,
	})
	return providerplugin.Session(sess), err
}

func (l local) Health(ctx context.Context) error { return l.p.Health(ctx) }

// remote is what memhost dispenses: the glue's client as a Provider.
type remote struct{ c providerplugin.Provider }

var _ Provider = remote{}

func (r remote) Describe(ctx context.Context) (Info, error) {
	info, err := r.c.Describe(ctx)
	return Info(info), err
}

func (r remote) Prepare(ctx context.Context, s Spawn) (Plan, error) {
	plan, err := r.c.Prepare(ctx, spawnToLocal(s))
	return planFromLocal(plan), err
}

func (r remote) Finish(ctx context.Context, e Ended) (Session, error) {
	sess, err := r.c.Finish(ctx, providerplugin.Ended{
		Spawn: spawnToLocal(e.Spawn), State: e.State, ExitCode: e.ExitCode, StartedAt: e.StartedAt, Duration: e.Duration,
	})
	return Session(sess), err
}

func (r remote) Health(ctx context.Context) error { return r.c.Health(ctx) }

// The conversions between the public types and the glue's mirrors: the
// nested MCPServer and File types keep them from being plain struct
// conversions.

func spawnToLocal(s Spawn) providerplugin.Spawn {
	out := providerplugin.Spawn{
		CLI: s.CLI, Executable: s.Executable, Args: s.Args, Dir: s.Dir, Env: s.Env,
		Banner: s.Banner, Project: s.Project, ScratchDir: s.ScratchDir,
	}
	if s.MCP != nil {
		m := providerplugin.MCPServer(*s.MCP)
		out.MCP = &m
	}
	return out
}

func spawnFromLocal(s providerplugin.Spawn) Spawn {
	out := Spawn{
		CLI: s.CLI, Executable: s.Executable, Args: s.Args, Dir: s.Dir, Env: s.Env,
		Banner: s.Banner, Project: s.Project, ScratchDir: s.ScratchDir,
	}
	if s.MCP != nil {
		m := MCPServer(*s.MCP)
		out.MCP = &m
	}
	return out
}

func planToLocal(p Plan) providerplugin.Plan {
	out := providerplugin.Plan{Args: p.Args, SetEnv: p.SetEnv, UnsetEnv: p.UnsetEnv, Cleanup: p.Cleanup, State: p.State}
	for _, f := range p.Files {
		out.Files = append(out.Files, providerplugin.File(f))
	}
	return out
}

func planFromLocal(p providerplugin.Plan) Plan {
	out := Plan{Args: p.Args, SetEnv: p.SetEnv, UnsetEnv: p.UnsetEnv, Cleanup: p.Cleanup, State: p.State}
	for _, f := range p.Files {
		out.Files = append(out.Files, File(f))
	}
	return out
}
