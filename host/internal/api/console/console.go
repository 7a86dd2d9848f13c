package console

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/wire"
)

// Prefix is where the console lives; the host redirects / here.
const Prefix = "/console/"

// Signin mints and redeems the console's sign-in codes and ends its sessions; *auth.Tokens
// implements it.
type Signin interface {
	SigninCode(ctx context.Context, p auth.Principal) (string, time.Time, error)
	Redeem(ctx context.Context, code string) (string, auth.Principal, error)
	EndSession(ctx context.Context, session string) error
}

// ProjectLister lists the projects that hold anything; *pgstore.Store implements it.
type ProjectLister interface {
	Projects(ctx context.Context, q store.ProjectsQuery) ([]store.ProjectSummary, error)
}

// Figures are the host's own figures the plots draw and the feed's events; *pgstore.Store
// implements it.
type Figures interface {
	DailyActivity(ctx context.Context, key string, since time.Time) ([]store.DayActivity, error)
	UseSpread(ctx context.Context, key string) (store.UseSpread, error)
	DailyCalls(ctx context.Context, since time.Time) ([]store.DayCalls, error)
	LatestEvents(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]store.LatestEvent, error)
}

// Maintenance reports the maintenance jobs as REST answers them (wire's types);
// *maintenance.Maintenance implements it.
type Maintenance interface {
	StatusReport(ctx context.Context, project string) ([]wire.MaintenanceJob, error)
}

// Workers reports the LLM workers and their last 24 hours; *tasks.Runner implements it.
type Workers interface {
	Status(ctx context.Context) (wire.WorkersStatus, error)
}

// FeedSource hands out the change feed the host follows; *lexical.Follower implements it.
type FeedSource interface {
	Subscribe(buffer int) (<-chan []store.Change, func())
}

// HostStatus is what the health page shows of the host (the daemon fills it from its own
// status, the one /api/v1/status answers).
type HostStatus struct {
	Version  string
	Database string
	Embedder EmbedderStatus
	// Plugins, Memories and Reembed are filled for a host-wide principal only, as on REST.
	Plugins  []plugins.Status
	Memories store.Counts
	Reembed  *wire.ReembedProgress
}

// EmbedderStatus is the active embedder as the host describes it.
type EmbedderStatus struct {
	Name, State, Tier, Configured, Reason, Degraded string
	Dimensions                                      int
	FoldThreshold                                   float64
}

// Options wires the console. Nil optional services leave their parts of a page out.
type Options struct {
	Service *memory.Service
	Brain   *brain.Service
	Door    *access.Door
	Signin  Signin
	// Projects lists projects for the home page (admin tokens, as REST's GET /projects).
	Projects    ProjectLister
	Figures     Figures
	Maintenance Maintenance
	Workers     Workers
	Status      func(ctx context.Context, full bool) (HostStatus, error)
	Feed        FeedSource
	// Metrics is the host's registry: the plots read the search and store latency histograms.
	Metrics prometheus.Gatherer
	Limits  auth.Limits
	Logger  *slog.Logger
}

// Console serves the console's pages.
type Console struct {
	Options
	pages *pages
	hub   *hub
	mux   *http.ServeMux
	cop   *http.CrossOriginProtection
}

// New builds the console; Run must run for the live feed to flow.
func New(o Options) *Console {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	c := &Console{Options: o, pages: parsed(), mux: http.NewServeMux(), cop: http.NewCrossOriginProtection()}
	c.hub = newHub(o.Feed, o.Figures, o.Logger)
	c.routes()
	return c
}

// Run follows the change feed for the live feed's subscribers until ctx ends.
func (c *Console) Run(ctx context.Context) error {
	c.hub.run(ctx)
	return nil
}

// ServeHTTP serves everything under Prefix.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w.Header())
	c.mux.ServeHTTP(w, r)
}

// routes mounts every page. Pages that read need memory:read, those that change a memory
// memory:write, those that decide for the project (goal, plan, inboxes) admin, as on REST.
func (c *Console) routes() {
	m := c.mux
	m.HandleFunc("POST "+Prefix+"signin-code", c.signinCode)
	m.HandleFunc("GET "+Prefix+"signin", c.signinPage)
	m.HandleFunc("POST "+Prefix+"signin", c.guardWrite(c.signin))
	m.HandleFunc("POST "+Prefix+"signout", c.page(auth.ScopeRead, c.signout))

	m.HandleFunc("GET "+Prefix+"{$}", c.page(auth.ScopeRead, c.home))
	m.HandleFunc("GET "+Prefix+"memories", c.page(auth.ScopeRead, c.memories))
	m.HandleFunc("GET "+Prefix+"memories/archive", c.page(auth.ScopeWrite, c.bulkArchiveConfirm))
	m.HandleFunc("POST "+Prefix+"memories/archive", c.page(auth.ScopeWrite, c.bulkArchive))
	m.HandleFunc("GET "+Prefix+"memories/{id}", c.page(auth.ScopeRead, c.memory))
	m.HandleFunc("POST "+Prefix+"memories/{id}/{op}", c.page(auth.ScopeWrite, c.changeMemory))
	m.HandleFunc("GET "+Prefix+"live", c.page(auth.ScopeRead, c.live))
	m.HandleFunc("GET "+Prefix+"feed", c.stream(c.feed))

	m.HandleFunc("GET "+Prefix+"project/{tab}", c.page(auth.ScopeRead, c.project))
	m.HandleFunc("POST "+Prefix+"project/{doc}", c.page(auth.ScopeAdmin, c.setDocument))
	m.HandleFunc("GET "+Prefix+"project/proposals/{id}", c.page(auth.ScopeRead, c.proposal))
	m.HandleFunc("POST "+Prefix+"project/proposals/{id}/{decision}", c.page(auth.ScopeAdmin, c.decideProposal))
	m.HandleFunc("POST "+Prefix+"project/conflicts/{id}/{decision}", c.page(auth.ScopeAdmin, c.decideConflict))

	m.HandleFunc("GET "+Prefix+"sessions", c.page(auth.ScopeRead, c.sessions))
	m.HandleFunc("GET "+Prefix+"sessions/{id}", c.page(auth.ScopeRead, c.session))

	m.HandleFunc("GET "+Prefix+"health", c.page(auth.ScopeRead, c.health))
	m.HandleFunc("GET "+Prefix+"plots", c.page(auth.ScopeRead, c.plots))
	m.HandleFunc(Prefix, c.page(auth.ScopeRead, c.notFound))
}
