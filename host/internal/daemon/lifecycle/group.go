package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
)

// Service is one piece of background work.
type Service interface {
	// Name identifies the service in logs.
	Name() string
	// Run works until ctx ends and then returns nil after releasing what it holds (flushing
	// buffered writes, for instance). An error return means the work stopped early; the
	// Group logs it and runs the service again.
	Run(ctx context.Context) error
}

// Func adapts a function to a Service.
func Func(name string, run func(ctx context.Context) error) Service { return funcService{name, run} }

type funcService struct {
	name string
	run  func(ctx context.Context) error
}

func (f funcService) Name() string                  { return f.name }
func (f funcService) Run(ctx context.Context) error { return f.run(ctx) }

// Restart backoff bounds: a failing service is retried soon, then at most every maxBackoff.
const (
	minBackoff = 500 * time.Millisecond
	maxBackoff = 30 * time.Second
)

// Group runs services from Start until Stop.
type Group struct {
	log      *slog.Logger
	services []Service

	mu      sync.Mutex
	cancel  context.CancelFunc
	running map[string]int // services still running, by name
	done    chan struct{}
}

// NewGroup returns a group of services; nothing runs before Start.
func NewGroup(log *slog.Logger, services ...Service) *Group {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Group{log: log, services: services, running: map[string]int{}}
}

// Add registers more services; it must be called before Start.
func (g *Group) Add(services ...Service) { g.services = append(g.services, services...) }

// Start runs every service in its own goroutine until Stop (or ctx's end). Starting a started
// group is an error.
func (g *Group) Start(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cancel != nil {
		return errors.New("lifecycle: group already started")
	}
	ctx, g.cancel = context.WithCancel(context.WithoutCancel(ctx))
	g.done = make(chan struct{})
	var wg sync.WaitGroup
	for _, s := range g.services {
		wg.Add(1)
		g.running[s.Name()]++
		go func() {
			defer wg.Done()
			g.supervise(ctx, s)
			g.mu.Lock()
			if g.running[s.Name()]--; g.running[s.Name()] == 0 {
				delete(g.running, s.Name())
			}
			g.mu.Unlock()
		}()
	}
	go func() { wg.Wait(); close(g.done) }()
	return nil
}

// supervise runs s until ctx ends, restarting it after errors and panics.
func (g *Group) supervise(ctx context.Context, s Service) {
	backoff := minBackoff
	for {
		started := time.Now()
		err := runSafely(ctx, s)
		if ctx.Err() != nil {
			if err != nil && !errors.Is(err, context.Canceled) {
				g.log.Warn("background service stopped with an error", "service", s.Name(), "err", err)
			}
			return
		}
		if err == nil {
			err = errors.New("returned before shutdown")
		}
		if time.Since(started) > maxBackoff {
			backoff = minBackoff // it ran well for a while: this is a fresh fault
		}
		g.log.Error("background service failed; restarting", "service", s.Name(), "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// runSafely runs s once, turning a panic into an error so one bad loop cannot crash the host.
func runSafely(ctx context.Context, s Service) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return s.Run(ctx)
}

// Stop ends every service and waits for them to return. If ctx ends first, Stop returns an
// error naming the services still running. Stopping a group that never started does nothing.
func (g *Group) Stop(ctx context.Context) error {
	g.mu.Lock()
	cancel, done := g.cancel, g.done
	g.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		names := make([]string, 0, len(g.running))
		for n := range g.running {
			names = append(names, n)
		}
		g.mu.Unlock()
		slices.Sort(names)
		return fmt.Errorf("lifecycle: still running at the stop deadline: %s", strings.Join(names, ", "))
	}
}
