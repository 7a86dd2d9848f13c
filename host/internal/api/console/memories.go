package console

import (
	"slices"
	"strconv"
	"strings"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// The Memories screen: a project's memories listed newest first, or searched and ranked with
// each score taken apart into the ranker's own terms; filtered by kind, origin, state, pin,
// supersession and archive reason; archived in bulk.

// States a listing can show.
const (
	stateLive     = "live"
	stateArchived = "archived"
	stateAll      = "all"
)

// searchTopK is how many hits a search shows (memory.Config.MaxK bounds it).
const searchTopK = 50

// query is the Memories screen's filter, read from the page's query string.
type query struct {
	Project    string
	Q          string
	Kind       string
	Origin     string
	State      string
	Pinned     bool
	Superseded bool
	Global     bool // global memories too, beside the project's
	Reason     string
	// Session keeps what one agent session wrote (its stores, its journal entry, the facts a
	// worker extracted from its transcript): the Sessions screen links here with it.
	Session string
	Cursor  string
}

// params are the query's parameters for the page's links (empty ones left out).
func (q query) params(extra ...string) []string {
	kv := []string{"project", q.Project, "q", q.Q, "kind", q.Kind, "origin", q.Origin, "state", q.State, "reason", q.Reason, "session", q.Session}
	if q.Pinned {
		kv = append(kv, "pinned", "1")
	}
	if q.Superseded {
		kv = append(kv, "superseded", "1")
	}
	if q.Global {
		kv = append(kv, "global", "1")
	}
	return append(kv, extra...)
}

// maxSessionFilter bounds the session filter: a session's key or a CLI's session id, with room
// to spare.
const maxSessionFilter = 256

// readQuery reads and checks the filter; a bad value names its field.
// resolveQuery is the project the page is for and the memories its filter asks for.
func (cl *call) resolveQuery() (memory.Access, query, error) {
	acc, err := cl.resolve()
	if err != nil {
		return acc, query{}, err
	}
	q, err := readQuery(cl, acc.Project)
	return acc, q, err
}

func readQuery(cl *call, project string) (query, error) {
	f := cl.r.Form
	q := query{Project: project, Q: strings.TrimSpace(f.Get("q")), Kind: f.Get("kind"), Origin: f.Get("origin"),
		State: f.Get("state"), Reason: strings.TrimSpace(f.Get("reason")), Session: strings.TrimSpace(f.Get("session")), Cursor: f.Get("cursor")}
	if q.State == "" {
		q.State = stateLive
	}
	if q.Reason != "" {
		q.State = stateArchived // a reason is an archived memory's
	}
	for name, dst := range map[string]*bool{"pinned": &q.Pinned, "superseded": &q.Superseded, "global": &q.Global} {
		if v := f.Get(name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return q, errField(name, "must be 1 or 0")
			}
			*dst = b
		}
	}
	if len(q.Session) > maxSessionFilter {
		return q, errField("session", "is longer than %d bytes", maxSessionFilter)
	}
	switch q.State {
	case stateLive, stateArchived, stateAll:
	default:
		return q, errField("state", "%q is not one of live, archived, all", q.State)
	}
	if q.Kind != "" {
		if _, err := store.ParseKind(q.Kind); err != nil {
			return q, errField("kind", "%s", strings.TrimPrefix(err.Error(), "kind: "))
		}
	}
	if _, err := store.ParseOrigin(q.Origin); err != nil {
		return q, errField("origin", "%s", strings.TrimPrefix(err.Error(), "origin: "))
	}
	return q, nil
}

// filter is the query as the memory service's filter.
func (q query) filter() store.Filter {
	o, _ := store.ParseOrigin(q.Origin) // checked by readQuery
	return store.Filter{Origin: o, Pinned: q.Pinned, Superseded: q.Superseded, Archived: q.State == stateArchived, ArchivedReason: q.Reason, Session: q.Session}
}

func (q query) kinds() []string {
	if q.Kind == "" {
		return nil
	}
	return []string{q.Kind}
}

// search is the query as a ranked search, explained and unrecorded: an operator looking is no
// agent retrieving, so it changes no memory's staleness.
func (q query) search() memory.SearchRequest {
	return memory.SearchRequest{Query: q.Q, TopK: searchTopK, Kinds: q.kinds(), IncludeArchived: q.State != stateLive,
		ExcludeGlobal: !q.Global, Filter: q.filter(), Explain: true, Unrecorded: true}
}

// list is the query as a newest-first listing. The project's own memories by default: the
// global ones beside them make the store merge two scopes' orders (measured at 100K memories:
// ~200 ms against a few for one scope's index), so they are listed when asked for.
func (q query) list(limit int) memory.ListRequest {
	return memory.ListRequest{Kinds: q.kinds(), IncludeArchived: q.State != stateLive, ExcludeGlobal: !q.Global, Filter: q.filter(), Limit: limit, Cursor: q.Cursor}
}

// memoriesView is the Memories screen's data.
type memoriesView struct {
	Query    query
	Kinds    []store.Kind
	Origins  []store.Origin
	Reasons  []string
	Hits     []memory.SearchHit
	Memories []memory.View
	Degraded string
	Next     string // the next page's URL, "" on the last
	All      string // the bulk-archive confirmation of everything the filter matches
	Searched bool
}

// listPage is how many memories one page lists.
const listPage = 25

func (c *Console) memories(cl *call) error {
	if cl.p.ProjectKey == "" && cl.r.FormValue("project") == "" {
		return cl.redirect(Prefix, "")
	}
	acc, q, err := cl.resolveQuery()
	if err != nil {
		return err
	}
	v := memoriesView{Query: q, Kinds: store.Kinds, Origins: store.Origins, Searched: q.Q != ""}
	if q.State != stateLive {
		// The archive's reasons, as the health snapshot groups them: only a listing that shows
		// archived memories offers them, so the everyday page does not count the project.
		h, err := c.Brain.Health(cl.r.Context(), acc)
		if err != nil {
			return err
		}
		for reason := range h.Archived {
			v.Reasons = append(v.Reasons, reason)
		}
		slices.Sort(v.Reasons)
	}
	if v.Searched {
		res, err := c.Service.Search(cl.r.Context(), acc, q.search())
		if err != nil {
			return err
		}
		v.Hits, v.Degraded = res.Hits, res.Degraded
	} else {
		page, err := c.Service.List(cl.r.Context(), acc, q.list(listPage))
		if err != nil {
			return err
		}
		v.Memories = page.Memories
		if page.Next != "" {
			v.Next = pageURL("memories", q.params("cursor", page.Next)...)
		}
	}
	q.Cursor = ""
	v.All = pageURL("memories/archive", q.params()...)
	c.render(cl.w, cl.r, cl, 200, "memories", v)
	return nil
}
