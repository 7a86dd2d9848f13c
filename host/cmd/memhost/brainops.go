package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// brainOps is what the project brain's commands ask of one project's brain: the running host's
// REST routes (hostBrain), or, when no host answers, a core opened on the database
// (localBrain). A ref is an id as the inboxes show it (short, or whole).
type brainOps interface {
	Document(ctx context.Context, kind store.Kind) (brain.DocumentView, error)
	SetDocument(ctx context.Context, kind store.Kind, text string) (brain.DocumentView, error)
	Inbox(ctx context.Context, status string) (brain.InboxPage, error)
	Proposal(ctx context.Context, ref string) (brain.ProposalDetail, error)
	Decide(ctx context.Context, ref string, approve bool) (brain.DecisionResult, error)
	Conflicts(ctx context.Context, status string) (brain.ConflictsPage, error)
	Conflict(ctx context.Context, ref string) (brain.ConflictView, error)
	// DecideConflict accepts (archiving the memory archive names, when not "") or dismisses.
	DecideConflict(ctx context.Context, ref string, accept bool, archive string) (brain.ConflictView, error)
	Map(ctx context.Context) (brain.MapView, error)
	PutMap(ctx context.Context, data []byte) (brain.MapView, error)
	Health(ctx context.Context) (brain.HealthView, error)
	Banner(ctx context.Context, req brain.BannerRequest) (string, error)
	ImportCLI(ctx context.Context, b brain.ImportBatch) (brain.ImportReport, error)
	// Value is the value report over req's window, which since spells as the host reads it.
	Value(ctx context.Context, since string, req brain.ValueRequest) (brain.ValueReport, error)
}

var (
	_ brainOps = hostBrain{}
	_ brainOps = localBrain{}
)

// hostBrain is one project's brain through the running host's REST API.
type hostBrain struct {
	h   *hostAPI
	key string
}

func (b hostBrain) get(ctx context.Context, route string, out any) error {
	return b.h.do(ctx, http.MethodGet, projectPath(b.key, route), nil, out)
}

// send sends body (nil for none) as JSON.
func (b hostBrain) send(ctx context.Context, method, route string, body, out any) error {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return err
		}
	}
	return b.h.do(ctx, method, projectPath(b.key, route), data, out)
}

func (b hostBrain) Document(ctx context.Context, kind store.Kind) (d brain.DocumentView, err error) {
	return d, b.get(ctx, string(kind), &d)
}

func (b hostBrain) SetDocument(ctx context.Context, kind store.Kind, text string) (d brain.DocumentView, err error) {
	return d, b.send(ctx, http.MethodPut, string(kind), map[string]string{"text": text, "source": "cli"}, &d)
}

func (b hostBrain) Inbox(ctx context.Context, status string) (p brain.InboxPage, err error) {
	return p, b.get(ctx, "proposals?"+url.Values{"status": {status}}.Encode(), &p)
}

func (b hostBrain) Proposal(ctx context.Context, ref string) (d brain.ProposalDetail, err error) {
	return d, b.get(ctx, "proposals/"+url.PathEscape(ref), &d)
}

func (b hostBrain) Decide(ctx context.Context, ref string, approve bool) (r brain.DecisionResult, err error) {
	return r, b.send(ctx, http.MethodPost, "proposals/"+url.PathEscape(ref)+"/"+map[bool]string{true: "approve", false: "reject"}[approve], nil, &r)
}

func (b hostBrain) Conflicts(ctx context.Context, status string) (p brain.ConflictsPage, err error) {
	return p, b.get(ctx, "conflicts?"+url.Values{"status": {status}}.Encode(), &p)
}

func (b hostBrain) Conflict(ctx context.Context, ref string) (v brain.ConflictView, err error) {
	return v, b.get(ctx, "conflicts/"+url.PathEscape(ref), &v)
}

func (b hostBrain) DecideConflict(ctx context.Context, ref string, accept bool, archive string) (v brain.ConflictView, err error) {
	if !accept {
		return v, b.send(ctx, http.MethodPost, "conflicts/"+url.PathEscape(ref)+"/dismiss", nil, &v)
	}
	return v, b.send(ctx, http.MethodPost, "conflicts/"+url.PathEscape(ref)+"/accept", map[string]string{"archive": archive}, &v)
}

func (b hostBrain) Map(ctx context.Context) (m brain.MapView, err error) {
	return m, b.get(ctx, "map", &m)
}

func (b hostBrain) PutMap(ctx context.Context, data []byte) (m brain.MapView, err error) {
	return m, b.h.do(ctx, http.MethodPut, projectPath(b.key, "map"), data, &m)
}

func (b hostBrain) Health(ctx context.Context) (h brain.HealthView, err error) {
	return h, b.get(ctx, "health", &h)
}

func (b hostBrain) Banner(ctx context.Context, req brain.BannerRequest) (string, error) {
	q := url.Values{"format": {"text"}}
	if req.CLI != "" {
		q.Set("cli", req.CLI)
	}
	if req.Budget != 0 {
		q.Set("budget", strconv.Itoa(req.Budget))
	}
	var text bytes.Buffer
	err := b.get(ctx, "banner?"+q.Encode(), &text)
	return text.String(), err
}

func (b hostBrain) ImportCLI(ctx context.Context, batch brain.ImportBatch) (r brain.ImportReport, err error) {
	return r, b.send(ctx, http.MethodPost, "import-cli", batch, &r)
}

func (b hostBrain) Value(ctx context.Context, since string, req brain.ValueRequest) (r brain.ValueReport, err error) {
	q := url.Values{"since": {since}, "unused_after": {strconv.Itoa(req.UnusedAfter)}}
	return r, b.get(ctx, "value?"+q.Encode(), &r)
}

// localBrain is one project's brain in a core the command opened on the database, acting as
// the operator with the admin grant.
type localBrain struct {
	b   *brain.Service
	acc memory.Access
}

func (l localBrain) Document(ctx context.Context, kind store.Kind) (brain.DocumentView, error) {
	return l.b.Document(ctx, l.acc, kind)
}

func (l localBrain) SetDocument(ctx context.Context, kind store.Kind, text string) (brain.DocumentView, error) {
	return l.b.SetDocument(ctx, l.acc, kind, brain.SetRequest{Text: text, Source: "cli"})
}

func (l localBrain) Inbox(ctx context.Context, status string) (brain.InboxPage, error) {
	return l.b.Inbox(ctx, l.acc, brain.InboxRequest{Status: status})
}

func (l localBrain) Proposal(ctx context.Context, ref string) (brain.ProposalDetail, error) {
	id, err := l.b.ProposalID(ctx, l.acc, ref)
	if err != nil {
		return brain.ProposalDetail{}, err
	}
	return l.b.Proposal(ctx, l.acc, id)
}

func (l localBrain) Decide(ctx context.Context, ref string, approve bool) (brain.DecisionResult, error) {
	id, err := l.b.ProposalID(ctx, l.acc, ref)
	switch {
	case err != nil:
		return brain.DecisionResult{}, err
	case approve:
		return l.b.Approve(ctx, l.acc, id)
	}
	return l.b.Reject(ctx, l.acc, id)
}

func (l localBrain) Conflicts(ctx context.Context, status string) (brain.ConflictsPage, error) {
	return l.b.Conflicts(ctx, l.acc, brain.ConflictsRequest{Status: status})
}

func (l localBrain) Conflict(ctx context.Context, ref string) (brain.ConflictView, error) {
	id, err := l.b.ConflictID(ctx, l.acc, ref)
	if err != nil {
		return brain.ConflictView{}, err
	}
	return l.b.Conflict(ctx, l.acc, id)
}

func (l localBrain) DecideConflict(ctx context.Context, ref string, accept bool, archive string) (brain.ConflictView, error) {
	id, err := l.b.ConflictID(ctx, l.acc, ref)
	switch {
	case err != nil:
		return brain.ConflictView{}, err
	case accept:
		return l.b.AcceptConflict(ctx, l.acc, id, archive)
	}
	return l.b.DismissConflict(ctx, l.acc, id)
}

func (l localBrain) Map(ctx context.Context) (brain.MapView, error) {
	return l.b.Map(ctx, l.acc, brain.MapRequest{})
}

func (l localBrain) PutMap(ctx context.Context, data []byte) (brain.MapView, error) {
	return l.b.PutMap(ctx, l.acc, data)
}

func (l localBrain) Health(ctx context.Context) (brain.HealthView, error) {
	return l.b.Health(ctx, l.acc)
}

func (l localBrain) Banner(ctx context.Context, req brain.BannerRequest) (string, error) {
	v, err := l.b.Banner(ctx, l.acc, req)
	return v.Text, err
}

func (l localBrain) ImportCLI(ctx context.Context, b brain.ImportBatch) (brain.ImportReport, error) {
	return l.b.ImportCLI(ctx, l.acc, b)
}

func (l localBrain) Value(ctx context.Context, _ string, req brain.ValueRequest) (brain.ValueReport, error) {
	return l.b.Value(ctx, l.acc, req)
}
