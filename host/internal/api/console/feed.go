package console

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/core/store"
)

// The live feed: every write, fold, merge, archive and restore the host follows on its change
// feed (the one its lexical index follows, lexical.Follower.Subscribe), told to each browser
// that may see it over server-sent events. A browser that reconnects sends the last event it
// saw (Last-Event-ID) and gets what it missed from a short replay buffer.

// FeedEvent is one change as the feed tells it.
type FeedEvent struct {
	Seq     int64       `json:"seq"`
	ID      uuid.UUID   `json:"id"`
	Short   string      `json:"short"`
	Scope   store.Scope `json:"scope"`
	Project string      `json:"project,omitempty"`
	Kind    store.Kind  `json:"kind"`
	// Event is what happened: the memory's latest history event (add, fold, merge, update,
	// archive, restore, import) or purge.
	Event string    `json:"event"`
	Actor string    `json:"actor,omitempty"`
	Text  string    `json:"text"`
	At    time.Time `json:"at"`
	URL   string    `json:"url"`
}

const (
	// feedReplay is how many recent events a reconnecting browser can catch up on.
	feedReplay = 500
	// feedResolve bounds the events one batch names in full: a bulk import's thousands of
	// changes are told as one summary event rather than read back one by one.
	feedResolve = 200
	// feedBuffer is how many events a slow browser may fall behind before it is told to reload.
	feedBuffer = 256
	// feedTextRunes clips a memory's text in an event.
	feedTextRunes = 240
	// heartbeat keeps idle connections (and proxies) open; recheck is how often a stream
	// re-checks its session, so signing out or revoking the token ends it.
	heartbeat = 15 * time.Second
	recheck   = 30 * time.Second
)

// subscriber is one browser's stream.
type subscriber struct {
	bound   string // the token's project, "" for none
	project string // the project the page asked for, "" for every project the token reaches
	events  chan FeedEvent
	lost    chan struct{} // closed when the subscriber fell behind and missed events
	once    sync.Once
}

// sees reports whether the subscriber may and wants to see e.
func (s *subscriber) sees(e FeedEvent) bool {
	if e.Scope == store.ScopeGlobal {
		return true // global memories are readable by every token
	}
	if s.bound != "" && e.Project != s.bound {
		return false
	}
	return s.project == "" || e.Project == s.project
}

// hub fans the change feed out to the subscribers.
type hub struct {
	feed    FeedSource
	figures Figures
	log     *slog.Logger

	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	recent []FeedEvent // the last feedReplay events, oldest first
}

func newHub(feed FeedSource, figures Figures, log *slog.Logger) *hub {
	return &hub{feed: feed, figures: figures, log: log, subs: map[*subscriber]struct{}{}}
}

// enabled reports whether the host gave the console a feed to follow.
func (h *hub) enabled() bool { return h.feed != nil && h.figures != nil }

// run follows the change feed until ctx ends.
func (h *hub) run(ctx context.Context) {
	if !h.enabled() {
		<-ctx.Done()
		return
	}
	changes, end := h.feed.Subscribe(64)
	defer end()
	for {
		select {
		case <-ctx.Done():
			return
		case batch, ok := <-changes:
			if !ok {
				return
			}
			h.publish(h.resolve(ctx, batch))
		}
	}
}

// resolve turns a batch of changes into events, reading what happened to each from its
// history in one query.
func (h *hub) resolve(ctx context.Context, batch []store.Change) []FeedEvent {
	named := batch
	if len(named) > feedResolve {
		named = named[len(named)-feedResolve:]
	}
	ids := make([]uuid.UUID, len(named))
	for i, c := range named {
		ids[i] = c.ID
	}
	latest, err := h.figures.LatestEvents(ctx, ids)
	if err != nil && ctx.Err() == nil {
		h.log.Warn("console feed: read latest events", "err", err)
	}
	now := time.Now().UTC()
	out := make([]FeedEvent, 0, len(named)+1)
	if skipped := len(batch) - len(named); skipped > 0 {
		// One summary per project would need the skipped rows' projects: the last of them
		// stands for the batch, which in practice is one import into one project.
		c := batch[0]
		out = append(out, FeedEvent{Seq: batch[len(batch)-len(named)-1].Seq, ID: c.ID, Short: shortid.Of(c.ID), Scope: c.Scope, Project: c.ScopeKey,
			Kind: c.Kind, Event: "bulk", Text: fmt.Sprintf("%d more changes in this batch (an import or a maintenance run)", skipped), At: now})
	}
	for _, c := range named {
		e := FeedEvent{Seq: c.Seq, ID: c.ID, Short: shortid.Of(c.ID), Scope: c.Scope, Project: c.ScopeKey, Kind: c.Kind,
			Text: clip(feedTextRunes, c.Text), At: now, Event: "change"}
		switch l, ok := latest[c.ID]; {
		case c.Purged:
			e.Event, e.Text = "purge", "(purged: the text is gone)"
		case ok:
			e.Event, e.Actor, e.At = string(l.Event), rules.PrintableLine(l.Actor), l.At
		}
		e.URL = pageURL("memories/"+c.ID.String(), "project", c.ScopeKey)
		out = append(out, e)
	}
	return out
}

// publish hands events to the subscribers that see them and keeps them for replay.
func (h *hub) publish(events []FeedEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recent = append(h.recent, events...)
	if n := len(h.recent) - feedReplay; n > 0 {
		h.recent = append(h.recent[:0:0], h.recent[n:]...)
	}
	for s := range h.subs {
		for _, e := range events {
			if !s.sees(e) {
				continue
			}
			select {
			case s.events <- e:
			default:
				s.once.Do(func() { close(s.lost) })
			}
		}
	}
}

// subscribe adds a subscriber and returns the events after lastSeq it may see (0: none).
func (h *hub) subscribe(s *subscriber, lastSeq int64) []FeedEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[s] = struct{}{}
	var missed []FeedEvent
	if lastSeq > 0 {
		for _, e := range h.recent {
			if e.Seq > lastSeq && s.sees(e) {
				missed = append(missed, e)
			}
		}
	}
	return missed
}

func (h *hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, s)
}

// stream serves a server-sent event stream for a signed-in session.
func (c *Console) stream(h func(cl *call, project string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		cl, err := c.signedIn(w, r)
		if err == nil {
			err = access.Limit(c.Limits.Reads, cl.p)
		}
		project := ""
		if err == nil && (cl.p.ProjectKey != "" || r.URL.Query().Get("project") != "") {
			var acc memory.Access
			acc, err = access.Resolve(cl.p, access.Target{Project: r.URL.Query().Get("project")})
			project = acc.Project
		}
		if err == nil && !cl.p.Has(auth.ScopeRead) {
			err = fmt.Errorf("%w: the live feed needs a token with the %s scope", auth.ErrForbidden, auth.ScopeRead)
		}
		if err == nil && !c.hub.enabled() {
			err = fmt.Errorf("%w: this host runs no live feed", access.ErrUnavailable)
		}
		if err != nil {
			p := access.Classify(err)
			if p.Internal {
				p.Ref = access.NewRef()
				c.Logger.Error("console feed", "ref", p.Ref, "err", err)
			}
			p.WriteHTTP(w)
			return
		}
		if err := h(cl, project); err != nil && r.Context().Err() == nil {
			c.Logger.Warn("console feed", "err", err)
		}
	}
}

// feed streams the events the session may see until the browser goes away, the session ends,
// or the browser falls too far behind (it is told to reconnect, and catches up from the
// replay buffer).
func (c *Console) feed(cl *call, project string) error {
	w, r := cl.w, cl.r
	rc := http.NewResponseController(w)
	// The server's write timeout is for ordinary answers; a stream lives as long as its page.
	_ = rc.SetWriteDeadline(time.Time{})
	s := &subscriber{bound: cl.p.ProjectKey, project: project, events: make(chan FeedEvent, feedBuffer), lost: make(chan struct{})}
	last, _ := strconv.ParseInt(r.Header.Get("Last-Event-ID"), 10, 64)
	missed := c.hub.subscribe(s, last)
	defer c.hub.unsubscribe(s)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 2000\n: memhost live feed\n\n"); err != nil {
		return err
	}
	send := func(e FeedEvent) error {
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "id: %d\nevent: change\ndata: %s\n\n", e.Seq, data)
		return err
	}
	for _, e := range missed {
		if err := send(e); err != nil {
			return err
		}
	}
	if err := rc.Flush(); err != nil {
		return err
	}
	beat, check := time.NewTicker(heartbeat), time.NewTicker(recheck)
	defer beat.Stop()
	defer check.Stop()
	ck, _ := r.Cookie(cookieName)
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-s.lost:
			_, err := fmt.Fprint(w, "event: behind\ndata: {}\n\n")
			_ = rc.Flush()
			return err
		case e := <-s.events:
			if err := send(e); err != nil {
				return err
			}
			// Send what else is waiting before flushing once.
			for n := len(s.events); n > 0; n-- {
				if err := send(<-s.events); err != nil {
					return err
				}
			}
		case <-beat.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return err
			}
		case <-check.C:
			if _, err := c.Door.AuthenticateSession(r.Context(), ck.Value); err != nil {
				_, _ = fmt.Fprint(w, "event: ended\ndata: {}\n\n")
				_ = rc.Flush()
				return nil
			}
		}
		if err := rc.Flush(); err != nil {
			return err
		}
	}
}

// liveView is the live feed page's data.
type liveView struct {
	FeedURL string
}

// live is the page of the live feed across the projects the token reaches (or one project).
func (c *Console) live(cl *call) error {
	project := ""
	if cl.p.ProjectKey != "" || cl.r.FormValue("project") != "" {
		acc, err := cl.resolve()
		if err != nil {
			return err
		}
		project = acc.Project
	}
	c.render(cl.w, cl.r, cl, 200, "live", liveView{FeedURL: pageURL("feed", "project", project)})
	return nil
}
