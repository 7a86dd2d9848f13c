package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
	"github.com/memhost/memhost/sdk/embedder"
)

// bm25Prefix names the always-present floor embedder.
const bm25Prefix = "bm25-"

// The tiers an embedder choice lands in.
const (
	TierDense    = "dense"
	TierBM25     = "bm25"
	TierExplicit = "explicit"
)

// probeTimeout bounds the boot-time reachability check of a dense endpoint: an endpoint that
// does not answer within it is unreachable for the choice, never a reason to hang boot.
const probeTimeout = 5 * time.Second

// endpointTimeout is embedders.NAME.timeout when unset: the openaicompat plugin's own default
// for one call (plugins/embed-openaicompat DefaultTimeout).
const endpointTimeout = 30 * time.Second

// endpointCallMargin is added to an endpoint's timeout for the host's ceiling on its calls, so
// that the plugin's own deadline ends a slow call and says so.
const endpointCallMargin = 5 * time.Second

// EmbedderCandidates are the embedder plugins to start: one process per [embedders.NAME]
// table, told only its settings (never the database URL), and every other embedder plugin
// found (the BM25 floor, third-party ones) as found. A binary a table uses runs only as
// configured instances, and openaicompat, which cannot work unconfigured, only so. missing
// maps a table to why it has no binary.
func EmbedderCandidates(cfg *config.Config, found []plugins.Candidate, environ func(string) (string, bool)) (cands []plugins.Candidate, missing map[string]string) {
	kind := embedders.Adapter{}.Kind()
	configuredOnly := map[string]bool{"openaicompat": true}
	missing = map[string]string{}
	names := make([]string, 0, len(cfg.Embedders))
	for name := range cfg.Embedders {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		e := cfg.Embedders[name]
		configuredOnly[e.Plugin] = true
		c, ok := plugins.Instance(found, kind, e.Plugin, name, endpointEnv(name, e, environ))
		if !ok {
			missing[name] = fmt.Sprintf("plugin memhost-embedder-%s is not in plugins.dirs (%s)", e.Plugin, strings.Join(cfg.Plugins.Dirs, ", "))
			continue
		}
		// The endpoint's own timeout governs its calls (a slow CPU model's batch may take
		// longer than plugins.call_timeout); plugins.call_timeout stays the floor.
		timeout := e.Timeout
		if timeout <= 0 {
			timeout = endpointTimeout
		}
		c.CallTimeout = max(cfg.Plugins.CallTimeout, timeout+endpointCallMargin)
		cands = append(cands, c)
	}
	for _, c := range plugins.OfKind(found, kind) {
		if !configuredOnly[c.Name] {
			cands = append(cands, c)
		}
	}
	return cands, missing
}

// endpointEnv is what the embedder of table name is told: the MEMHOST_EMBEDDER_* contract of
// the embedder plugins (plugins/embed-openaicompat), each from its key in [embedders.NAME],
// and the variable holding its key.
func endpointEnv(name string, e config.Endpoint, environ func(string) (string, bool)) plugins.Configured {
	itoa := func(n int) string {
		if n <= 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	var timeout string
	if e.Timeout > 0 {
		timeout = e.Timeout.String()
	}
	var pass []string
	if e.APIKeyEnv != "" {
		pass = []string{e.APIKeyEnv}
	}
	key := func(field string) string { return "embedders." + name + "." + field }
	return plugins.Settings([]plugins.Setting{
		{Var: "MEMHOST_EMBEDDER_NAME", Key: "[embedders." + name + "]", Value: name},
		{Var: "MEMHOST_EMBEDDER_BASE_URL", Key: key("base_url"), Value: e.BaseURL},
		{Var: "MEMHOST_EMBEDDER_MODEL", Key: key("model"), Value: e.Model},
		{Var: "MEMHOST_EMBEDDER_API_KEY_ENV", Key: key("api_key_env"), Value: e.APIKeyEnv},
		{Var: "MEMHOST_EMBEDDER_DIMENSIONS", Key: key("dimensions"), Value: itoa(e.Dimensions)},
		{Var: "MEMHOST_EMBEDDER_MAX_INPUT_TOKENS", Key: key("max_input_tokens"), Value: itoa(e.MaxInputTokens)},
		{Var: "MEMHOST_EMBEDDER_QUERY_PREFIX", Key: key("query_prefix"), Value: e.QueryPrefix},
		{Var: "MEMHOST_EMBEDDER_DOCUMENT_PREFIX", Key: key("document_prefix"), Value: e.DocumentPrefix},
		{Var: "MEMHOST_EMBEDDER_TIMEOUT", Key: key("timeout"), Value: timeout},
	}, pass, environ)
}

// ActiveEmbedder is the one owner of which embedder the host uses (memory.EmbedderSource):
// embedder.active as set, or with "auto" the tier seed 000 §11.2 describes. It is chosen at
// boot by ChooseEmbedder and changes afterwards in one way only: from the BM25 floor up to a
// configured dense endpoint that was unreachable at boot, once it answers. It never goes down.
type ActiveEmbedder struct {
	configured string
	sup        *plugins.Supervisor
	log        *slog.Logger

	mu     sync.Mutex
	active *embedders.Handle // nil while the intended dense embedder has not started
	tier   string
	reason string
	// answers, when set, is what reason adds while the active embedder is ready (" and
	// answers — semantic memory is on"): said only while true, so status never claims an
	// endpoint answers beside a degraded line saying it does not.
	answers string
	// pending is why active is nil: the dense embedder the stored vectors need did not start.
	pending error
	// upgrade is the configured dense embedder to switch to once it is healthy, while the
	// BM25 floor serves in its stead.
	upgrade *embedders.Handle
}

var _ memory.EmbedderSource = (*ActiveEmbedder)(nil)

// EmbedderStatus is the effective embedder, the configured choice and why, for
// /api/v1/status, `memhost status` and `memhost plugins`.
type EmbedderStatus struct {
	// Name is the effective embedder's vector space, "" while none serves.
	Name          string  `json:"name"`
	Dimensions    int     `json:"dimensions"`
	State         string  `json:"state"`
	FoldThreshold float64 `json:"fold_threshold"`
	// Configured is embedder.active as set ("auto" by default).
	Configured string `json:"configured,omitempty"`
	// Tier is dense, bm25 or explicit.
	Tier string `json:"tier,omitempty"`
	// Reason says why this embedder, in words for an operator.
	Reason string `json:"reason,omitempty"`
	// Degraded, when set, says what does not work right now and what still does.
	Degraded string `json:"degraded,omitempty"`
	// Waiting, when set, is why the configured dense endpoint the BM25 floor serves in stead of
	// has not taken over: its state and last error.
	Waiting string `json:"waiting,omitempty"`
}

// ChooseEmbedder picks the active embedder among those s runs. embedder.active (configured)
// may be "auto" (or empty), "bm25", the name of an [embedders.NAME] table, or what an
// operator sees in the plugin folder (memhost-embedder-bm25, bm25) or the name a plugin
// reports (bm25-v1-384). stored lists the embedders whose vectors the database holds (nil
// when it was not asked, as in `memhost config check`). Ambiguity is an error, not a guess:
// the choice decides which vectors every memory gets.
func ChooseEmbedder(ctx context.Context, s *plugins.Supervisor, cfg *config.Config, stored []string, log *slog.Logger) (*ActiveEmbedder, error) {
	a := &ActiveEmbedder{configured: cfg.Embedder.Active, sup: s, log: log}
	if a.configured == "" {
		a.configured = config.ActiveAuto
	}
	handles := embedders.List(s)
	if a.configured != config.ActiveAuto {
		return a, a.explicit(cfg, handles)
	}
	return a, a.auto(ctx, cfg, handles, stored)
}

// explicit resolves a named choice: it behaves as set, whatever is stored.
func (a *ActiveEmbedder) explicit(cfg *config.Config, handles []*embedders.Handle) error {
	name := a.configured
	a.tier = TierExplicit
	if _, ok := cfg.Embedders[name]; ok {
		i := slices.IndexFunc(handles, func(h *embedders.Handle) bool { return h.Instance() == name })
		if i < 0 {
			return fmt.Errorf("embedder.active is %q but that embedder did not start (%s); `memhost plugins` shows why", name, a.instanceError(name, cfg.Embedders[name].Plugin))
		}
		a.active, a.reason = handles[i], fmt.Sprintf("embedder.active names [embedders.%s]", name)
		return nil
	}
	h, err := embedders.Find(a.sup, name)
	switch {
	case err == nil:
		a.active, a.reason = h, fmt.Sprintf("embedder.active names %s", name)
		return nil
	case errors.Is(err, plugins.ErrNotFound):
		return fmt.Errorf("embedder.active is %q but no embedder plugin answers to that name (running: %s)", name, describe(handles))
	default:
		return fmt.Errorf("embedder.active is %q but that plugin did not start (%v); `memhost plugins` shows why", name, err)
	}
}

// auto tiers by availability, upgrade-only: the stored dense vectors are the intent.
func (a *ActiveEmbedder) auto(ctx context.Context, cfg *config.Config, handles []*embedders.Handle, stored []string) error {
	var dense []string
	for _, name := range stored {
		if !strings.HasPrefix(name, bm25Prefix) {
			dense = append(dense, name)
		}
	}
	endpoints := make([]string, 0, len(cfg.Embedders))
	for name := range cfg.Embedders {
		endpoints = append(endpoints, name)
	}
	slices.Sort(endpoints)
	// The stored vectors' embedder serves them, configured or a plugin of its own.
	if len(dense) > 0 {
		for _, h := range handles {
			if slices.Contains(dense, h.Info().Name) {
				a.active, a.tier = h, TierDense
				a.reason = fmt.Sprintf("dense: vectors of %s are stored, so it stays active (never downgraded to BM25)", h.Info().Name)
				return nil
			}
		}
	}
	if len(endpoints) > 1 {
		return fmt.Errorf("several embedding endpoints are configured (%s); choose one with embedder.active", strings.Join(endpoints, ", "))
	}
	var endpoint *embedders.Handle
	if len(endpoints) == 1 {
		if i := slices.IndexFunc(handles, func(h *embedders.Handle) bool { return h.Instance() == endpoints[0] }); i >= 0 {
			endpoint = handles[i]
		}
	}

	if len(dense) > 0 {
		a.tier = TierDense
		switch {
		case len(endpoints) == 0:
			return fmt.Errorf("the database holds vectors of the dense embedder %s, but no embedding endpoint is configured: "+
				"restore its [embedders.NAME] table (plugin, base_url, model), or set embedder.active = \"bm25\" to abandon dense memory "+
				"(its vectors stay stored, unused); memhost does not drop to BM25 on its own", strings.Join(dense, ", "))
		case endpoint == nil:
			// The endpoint's plugin did not start (with no dimensions configured it asks its
			// runtime at start, and the runtime is down): stay dense and wait, serving search
			// lexically.
			a.pending = fmt.Errorf("the dense embedder [embedders.%s] did not start: %s", endpoints[0], a.instanceError(endpoints[0], cfg.Embedders[endpoints[0]].Plugin))
			if cfg.Embedders[endpoints[0]].Dimensions == 0 {
				a.pending = fmt.Errorf("%w; set embedders.%s.dimensions so it starts while its runtime is down", a.pending, endpoints[0])
			}
			a.reason = fmt.Sprintf("dense: vectors of %s are stored, so the dense tier stays (never downgraded to BM25)", strings.Join(dense, ", "))
			return nil
		default:
			// Another model or width than the stored vectors': a switch the operator made, not
			// a downgrade. The new embedder serves; the stored vectors await re-embedding.
			a.active = endpoint
			a.reason = fmt.Sprintf("dense: [embedders.%s] (%s) is configured; stored vectors of %s are not comparable with it", endpoints[0], endpoint.Info().Name, strings.Join(dense, ", "))
			return nil
		}
	}

	floor := slices.IndexFunc(handles, func(h *embedders.Handle) bool { return strings.HasPrefix(h.Info().Name, bm25Prefix) })
	if endpoint != nil {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		err := endpoint.Health(pctx)
		cancel()
		if err == nil || floor < 0 {
			a.active, a.tier = endpoint, TierDense
			a.reason = fmt.Sprintf("dense: [embedders.%s] (%s) is configured", endpoints[0], endpoint.Info().Name)
			a.answers = " and answers — semantic memory is on"
			return nil
		}
		a.active, a.tier, a.upgrade = handles[floor], TierBM25, endpoint
		// Unreachable or not, the endpoint failed its health check (a model that cuts long
		// input answers, and fails it too): the reason says which, in the plugin's words.
		a.reason = fmt.Sprintf("BM25: the embedding endpoint [embedders.%s] is configured but fails its health check — using BM25 until it passes", endpoints[0])
		a.log.Warn("embedding endpoint fails its health check at boot; BM25 serves until it passes", "embedder", endpoints[0], "reason", plugins.Diagnosis(err))
		return nil
	}
	if floor >= 0 {
		a.active, a.tier = handles[floor], TierBM25
		a.reason = "BM25: no embedding endpoint configured — semantic memory is off"
		if len(endpoints) == 1 {
			a.reason = fmt.Sprintf("BM25: the embedding endpoint [embedders.%s] did not start — semantic memory is off; `memhost plugins` shows why", endpoints[0])
		}
		return nil
	}
	switch len(handles) {
	case 0:
		return fmt.Errorf("no embedder plugin found; build them with `make build` (the BM25 floor is bin/plugins/memhost-embedder-bm25) or set plugins.dirs")
	case 1:
		a.active, a.tier = handles[0], TierDense
		a.reason = fmt.Sprintf("the only embedder plugin found: %s", handles[0].Info().Name)
		return nil
	}
	return fmt.Errorf("several embedders are running (%s); choose one with embedder.active", describe(handles))
}

// instanceError says why the configured instance name, of plugin, did not start.
func (a *ActiveEmbedder) instanceError(name, plugin string) string {
	for _, st := range a.sup.List() {
		if st.Instance == name && st.LastError != "" {
			return plugins.OneLine(st.LastError, maxStatusError)
		}
	}
	return fmt.Sprintf("no process: memhost-embedder-%s is not in plugins.dirs", plugin)
}

// Active implements memory.EmbedderSource: the active embedder, after switching up to the
// configured dense endpoint once it is healthy. While the intended dense embedder has not
// started it answers an error, and the memory service serves search lexically and asks
// writers to retry.
func (a *ActiveEmbedder) Active(ctx context.Context) (embedder.Embedder, embedder.Info, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.upgrade != nil && a.upgrade.State() == plugins.StateReady {
		a.active, a.tier, a.upgrade = a.upgrade, TierDense, nil
		a.reason = fmt.Sprintf("dense: the embedding endpoint %s passed its health check", a.active.Info().Name)
		a.answers = " and answers — semantic memory is on"
		a.log.Info("embedding endpoint answers; dense memory is on", "embedder", a.active.Info().Name)
	}
	if a.active == nil {
		return nil, embedder.Info{}, fmt.Errorf("%w: %w", embedder.ErrUnavailable, a.pending)
	}
	return a.active, a.active.Info(), nil
}

// adopt takes next's choice: a reload swaps it in while the memory service keeps its source.
func (a *ActiveEmbedder) adopt(next *ActiveEmbedder) {
	next.mu.Lock()
	configured, active, tier, reason, answers, pending, upgrade := next.configured, next.active, next.tier, next.reason, next.answers, next.pending, next.upgrade
	next.mu.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.configured, a.active, a.tier, a.reason, a.answers, a.pending, a.upgrade = configured, active, tier, reason, answers, pending, upgrade
}

// Handle is the active embedder's plugin, nil while none serves.
func (a *ActiveEmbedder) Handle() *embedders.Handle {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.active
}

// Status is the effective embedder, the configured choice and why; foldThresholds are the
// configured overrides of the plugins' suggestions.
func (a *ActiveEmbedder) Status(foldThresholds map[string]float64) EmbedderStatus {
	_, _, _ = a.Active(context.Background()) // an upgrade shows as soon as it is possible
	a.mu.Lock()
	defer a.mu.Unlock()
	s := EmbedderStatus{Configured: a.configured, Tier: a.tier, Reason: a.reason}
	if a.active == nil {
		s.State = string(plugins.StateFailed)
		s.Degraded = "the dense embedder is not running: " + a.pending.Error() + "; search answers lexically (BM25) and writes are refused, to retry, until it starts"
		return s
	}
	info := a.active.Info()
	state := a.active.State()
	s.Name, s.Dimensions, s.State, s.FoldThreshold = info.Name, info.Dimensions, string(state), info.SuggestedFoldThreshold
	if t, ok := foldThresholds[info.Name]; ok {
		s.FoldThreshold = t
	}
	if state == plugins.StateReady {
		s.Reason += a.answers
	} else {
		if a.answers != "" {
			s.Reason += ", and does not answer now"
		}
		s.Degraded = fmt.Sprintf("%s is %s (%s): search answers lexically (BM25); a write it fails is refused, to retry, and one it is slow to answer is stored with its vector to follow; nothing is downgraded",
			info.Name, state, plugins.OneLine(a.active.Status().LastError, maxStatusError))
	}
	if a.upgrade != nil {
		s.Waiting = fmt.Sprintf("%s is %s (%s)", a.upgrade.Info().Name, a.upgrade.State(), plugins.OneLine(a.upgrade.Status().LastError, maxStatusError))
	}
	return s
}

// maxStatusError bounds a plugin's last error quoted in the embedder's status: long enough for
// a plugin's advice, which follows what it saw.
const maxStatusError = 600

// describe lists embedders with both names an operator may use for them.
func describe(handles []*embedders.Handle) string {
	if len(handles) == 0 {
		return "none"
	}
	names := make([]string, len(handles))
	for i, h := range handles {
		names[i] = h.Info().Name + " from " + h.Binary()
	}
	return strings.Join(names, ", ")
}
