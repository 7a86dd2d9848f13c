package restapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
)

// StatusFunc reports the host's status for GET /api/v1/status. full is false for callers
// without the admin scope, who get states but no database-wide counts or plugin internals.
type StatusFunc func(ctx context.Context, full bool) (any, error)

// Options wires the API.
type Options struct {
	Service *memory.Service
	// Brain serves the project routes under /api/v1/projects/{key}; nil leaves them out.
	Brain *brain.Service
	// Projects serves the projects listing, GET /api/v1/projects; nil leaves it out.
	Projects ProjectLister
	// Workers serves the admin routes under /api/v1/workers; nil leaves them out.
	Workers Workers
	Door    *access.Door
	// Limits are the per-token rate limits: reads on the read routes, writes on the write
	// routes. A nil limiter does not limit.
	Limits auth.Limits
	Status StatusFunc
	// Reload serves POST /api/v1/admin/reload (admin): the host re-reads its configuration and
	// plugins; nil leaves it out.
	Reload func(ctx context.Context) (any, error)
	// Maintenance serves /api/v1/maintenance (admin); nil leaves it out.
	Maintenance Maintenance
	Logger      *slog.Logger
	// MaxBodyBytes bounds request bodies; larger ones are refused before decoding.
	MaxBodyBytes int64
}

type api struct{ Options }

const principalKey = "memhost.principal"

// Register mounts /api/v1 on r.
func Register(r gin.IRouter, o Options) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 1 << 20
	}
	a := &api{o}
	v1 := r.Group("/api/v1")
	v1.GET("/openapi.json", func(c *gin.Context) { c.Data(http.StatusOK, "application/json", openAPI) })
	authed := v1.Group("", a.authenticate)
	read := authed.Group("", a.require(auth.ScopeRead), a.limit(a.Limits.Reads))
	read.GET("/status", a.status)
	read.POST("/memories/search", inBodyProject(a, a.search))
	read.GET("/memories", a.list)
	read.GET("/memories/:id", a.byID(a.get))
	read.GET("/memories/:id/history", a.byID(a.history))
	write := authed.Group("", a.require(auth.ScopeWrite))
	limitWrites := a.limit(a.Limits.Writes)
	write.POST("/memories", limitWrites, inBodyProject(a, a.store))
	write.PATCH("/memories/:id", limitWrites, changeByID(a, a.edit))
	write.POST("/memories/:id/archive", limitWrites, changeByID(a, a.archive))
	write.POST("/memories/:id/restore", limitWrites, changeByID(a, a.restore))
	write.POST("/memories/:id/unmerge", limitWrites, changeByID(a, a.unmerge))
	write.POST("/memories/:id/unsupersede", limitWrites, changeByID(a, a.unsupersede))
	write.PUT("/memories/:id/pin", limitWrites, changeByID(a, a.pin(true)))
	write.DELETE("/memories/:id/pin", limitWrites, changeByID(a, a.pin(false)))
	// admin routes act on one project (the path's, or the token's when it is bound to one);
	// hostWide routes act on the host as a whole and need an admin token bound to no project.
	admin := authed.Group("", a.require(auth.ScopeAdmin))
	hostWide := authed.Group("", a.requireHostWide)
	if o.Brain != nil {
		a.registerProjects(read, write, admin)
		a.registerConflicts(read, admin)
		a.registerImportCLI(admin)
	}
	if o.Workers != nil {
		a.registerWorkers(hostWide)
	}
	if o.Projects != nil {
		a.registerProjectList(authed)
	}
	if o.Maintenance != nil {
		a.registerMaintenance(admin)
	}
	if o.Reload != nil {
		hostWide.POST("/admin/reload", a.limit(a.Limits.Writes), a.reload)
	}
}

// reload answers POST /admin/reload with what the reload put in place, or with why it was
// refused (the running configuration then stays).
func (a *api) reload(c *gin.Context) {
	res, err := a.Reload(c.Request.Context())
	if err != nil {
		fail(c, a.Logger, err)
		return
	}
	c.JSON(http.StatusOK, res)
}

func (a *api) authenticate(c *gin.Context) {
	p, err := a.Door.AuthenticateRequest(c.Request)
	if err != nil {
		fail(c, a.Logger, err)
		return
	}
	c.Set(principalKey, p)
}

func principal(c *gin.Context) auth.Principal { return c.MustGet(principalKey).(auth.Principal) }

func (a *api) require(s auth.Scope) gin.HandlerFunc {
	return func(c *gin.Context) {
		if !principal(c).Has(s) {
			fail(c, a.Logger, fmt.Errorf("%w: this token lacks the %s scope", auth.ErrForbidden, s))
		}
	}
}

// requireHostWide guards the routes that act on the host as a whole (auth.Principal.HostWide):
// the one place the REST surface applies that rule.
func (a *api) requireHostWide(c *gin.Context) {
	if err := principal(c).RequireHostWide(c.Request.Method + " " + c.FullPath()); err != nil {
		fail(c, a.Logger, err)
	}
}

// limit applies l, a per-token rate limit, to the routes it guards.
func (a *api) limit(l *auth.Limiter) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := access.Limit(l, principal(c)); err != nil {
			fail(c, a.Logger, err)
		}
	}
}

// access resolves the caller's project through the front door: a project-bound token decides;
// otherwise the body's project or cwd, the project (or cwd) query parameter, or the
// X-Memhost-Project header.
func (a *api) access(c *gin.Context, bodyProject, bodyCwd string) (memory.Access, error) {
	return access.Resolve(principal(c), access.Target{
		Project: firstNonEmpty(bodyProject, c.Query("project"), c.GetHeader("X-Memhost-Project")),
		Cwd:     firstNonEmpty(bodyCwd, c.Query("cwd")),
	})
}

// bodyTarget is the project a request body names (project, or a cwd in it), as the MCP tools'
// arguments do; a.access falls back to the query and the header.
type bodyTarget struct {
	Project string `json:"project"`
	Cwd     string `json:"cwd"`
}

func (t bodyTarget) target() bodyTarget { return t }

// inBodyProject serves a route whose JSON body (B) names its project: the body is decoded and
// the project resolved (a.access), then op's answer is written as inProject writes it.
func inBodyProject[B interface{ target() bodyTarget }](a *api, op func(ctx context.Context, acc memory.Access, b B) (any, int, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		var b B
		if err := a.decode(c, &b); err != nil {
			fail(c, a.Logger, err)
			return
		}
		t := b.target()
		acc, err := a.access(c, t.Project, t.Cwd)
		if err != nil {
			fail(c, a.Logger, err)
			return
		}
		out, status, err := op(c.Request.Context(), acc, b)
		a.answer(c, out, status, err)
	}
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// decode reads a JSON body strictly: unknown fields and trailing data are errors that name
// what was wrong. The raw bytes are checked first (rawBody), since decoding would silently
// replace invalid UTF-8 and unpaired surrogate escapes.
func (a *api) decode(c *gin.Context, dst any) error { return a.decodeWithin(c, dst, a.MaxBodyBytes) }

// decodeWithin is decode for a route whose bodies may be larger than MaxBodyBytes, up to limit.
func (a *api) decodeWithin(c *gin.Context, dst any, limit int64) error {
	data, err := a.rawBodyWithin(c, limit)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		switch {
		case errors.Is(err, io.EOF):
			return &rules.FieldError{Field: "body", Message: "must be a JSON object"}
		}
		msg := err.Error()
		if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			return &rules.FieldError{Field: strings.Trim(f, `"`), Message: "is not a known field"}
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return &rules.FieldError{Field: "body", Message: "must be a JSON object"}
			}
			return &rules.FieldError{Field: te.Field, Message: "must be " + jsonKind(te.Type)}
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return &rules.FieldError{Field: "body", Message: fmt.Sprintf("is not valid JSON (syntax error at byte %d)", se.Offset)}
		}
		return &rules.FieldError{Field: "body", Message: "is not valid JSON"}
	}
	if dec.More() {
		return &rules.FieldError{Field: "body", Message: "has data after the JSON object"}
	}
	return nil
}

// rawBody reads the request body up to MaxBodyBytes and refuses text a JSON decoder would
// alter (rules.CheckJSON).
func (a *api) rawBody(c *gin.Context) ([]byte, error) { return a.rawBodyWithin(c, a.MaxBodyBytes) }

func (a *api) rawBodyWithin(c *gin.Context, limit int64) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, limit))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, &rules.FieldError{Field: "body", Message: fmt.Sprintf("is larger than the limit of %d bytes", mbe.Limit)}
	case err != nil:
		return nil, &rules.FieldError{Field: "body", Message: "could not be read to its end"}
	}
	return data, rules.CheckJSON(data)
}

type storeBody struct {
	Text       string   `json:"text"`
	Kind       string   `json:"kind"`
	Scope      string   `json:"scope"`
	Importance *float64 `json:"importance"`
	Confidence *float64 `json:"confidence"`
	Pinned     bool     `json:"pinned"`
	Agent      string   `json:"agent"`
	Session    string   `json:"session"`
	bodyTarget
}

func (a *api) store(ctx context.Context, acc memory.Access, b storeBody) (any, int, error) {
	res, err := a.Service.Store(ctx, acc, memory.StoreRequest{Text: b.Text, Kind: b.Kind, Scope: b.Scope,
		Importance: b.Importance, Confidence: b.Confidence, Pinned: b.Pinned, Agent: b.Agent, Session: b.Session, Source: "rest"})
	status := http.StatusCreated
	if res.Folded || res.Vetoed != "" {
		status = http.StatusOK
	}
	return res, status, err
}

type searchBody struct {
	Query           string   `json:"query"`
	TopK            int      `json:"top_k"`
	Kinds           []string `json:"kinds"`
	MinScore        float64  `json:"min_score"`
	IncludeArchived bool     `json:"include_archived"`
	ExcludeGlobal   bool     `json:"exclude_global"`
	bodyTarget
}

func (a *api) search(ctx context.Context, acc memory.Access, b searchBody) (any, int, error) {
	res, err := a.Service.Search(ctx, acc, memory.SearchRequest{Query: b.Query, TopK: b.TopK, Kinds: b.Kinds,
		MinScore: b.MinScore, IncludeArchived: b.IncludeArchived, ExcludeGlobal: b.ExcludeGlobal})
	if err != nil {
		return nil, 0, err
	}
	body := gin.H{"results": orEmpty(res.Hits)}
	if res.Degraded != "" {
		body["degraded"] = res.Degraded
	}
	return body, 0, nil
}

func (a *api) list(c *gin.Context) {
	acc, err := a.access(c, "", "")
	if err != nil {
		fail(c, a.Logger, err)
		return
	}
	req := memory.ListRequest{Cursor: c.Query("cursor")}
	if k := c.Query("kinds"); k != "" {
		req.Kinds = strings.Split(k, ",")
	}
	for name, dst := range map[string]*bool{"include_archived": &req.IncludeArchived, "only_archived": &req.OnlyArchived, "exclude_global": &req.ExcludeGlobal} {
		if v := c.Query(name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				fail(c, a.Logger, &rules.FieldError{Field: name, Message: "must be true or false"})
				return
			}
			*dst = b
		}
	}
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fail(c, a.Logger, &rules.FieldError{Field: "limit", Message: "must be an integer"})
			return
		}
		req.Limit = n
	}
	page, err := a.Service.List(c.Request.Context(), acc, req)
	if err != nil {
		fail(c, a.Logger, err)
		return
	}
	c.JSON(http.StatusOK, page)
}

// lookup resolves the memory :id names (a UUID or an id prefix) in the caller's project.
func (a *api) lookup(c *gin.Context, acc memory.Access, err error) (uuid.UUID, bool) {
	if err != nil {
		fail(c, a.Logger, err)
		return uuid.Nil, false
	}
	id, err := a.Service.Lookup(c.Request.Context(), acc, c.Param("id"))
	if err != nil {
		fail(c, a.Logger, err)
		return uuid.Nil, false
	}
	return id, true
}

// byID serves the read routes that act on one memory: resolve the project from the query or
// header, parse :id, run op.
func (a *api) byID(op func(ctx context.Context, acc memory.Access, id uuid.UUID) (any, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		acc, err := a.access(c, "", "")
		id, ok := a.lookup(c, acc, err)
		if !ok {
			return
		}
		answer(c, a.Logger)(op(c.Request.Context(), acc, id))
	}
}

// located is the optional JSON body of a route that changes one memory: it may name the
// project (or cwd) as the store and search bodies do.
type located interface{ where() (project, cwd string) }

// place is the part of a body that names the project.
type place struct {
	Project string `json:"project"`
	Cwd     string `json:"cwd"`
}

func (p place) where() (string, string) { return p.Project, p.Cwd }

// changeByID serves the write routes that act on one memory: decode the optional body B,
// resolve the project from it (else the query or header), parse :id, run op.
func changeByID[B any, PB interface {
	*B
	located
}](a *api, op func(ctx context.Context, acc memory.Access, id uuid.UUID, body *B) (any, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		var b B
		if c.Request.ContentLength != 0 {
			if err := a.decode(c, &b); err != nil {
				fail(c, a.Logger, err)
				return
			}
		}
		project, cwd := PB(&b).where()
		acc, err := a.access(c, project, cwd)
		id, ok := a.lookup(c, acc, err)
		if !ok {
			return
		}
		answer(c, a.Logger)(op(c.Request.Context(), acc, id, &b))
	}
}

// answer writes an op's result: 200 with out, or the error.
func answer(c *gin.Context, log *slog.Logger) func(out any, err error) {
	return func(out any, err error) {
		if err != nil {
			fail(c, log, err)
			return
		}
		c.JSON(http.StatusOK, out)
	}
}

func (a *api) get(ctx context.Context, acc memory.Access, id uuid.UUID) (any, error) {
	return a.Service.Get(ctx, acc, id)
}

func (a *api) history(ctx context.Context, acc memory.Access, id uuid.UUID) (any, error) {
	h, err := a.Service.History(ctx, acc, id)
	return gin.H{"history": h}, err
}

type archiveBody struct {
	Reason string `json:"reason"`
	place
}

func (a *api) archive(ctx context.Context, acc memory.Access, id uuid.UUID, b *archiveBody) (any, error) {
	return a.Service.Archive(ctx, acc, id, b.Reason)
}

func (a *api) restore(ctx context.Context, acc memory.Access, id uuid.UUID, _ *place) (any, error) {
	return a.Service.Restore(ctx, acc, id)
}

// unmerge undoes what consolidation merged into a memory (docs/maintenance.md).
func (a *api) unmerge(ctx context.Context, acc memory.Access, id uuid.UUID, _ *place) (any, error) {
	return a.Service.Unmerge(ctx, acc, id)
}

// unsupersede undoes the conflicts job's supersession of a memory (docs/maintenance.md).
func (a *api) unsupersede(ctx context.Context, acc memory.Access, id uuid.UUID, _ *place) (any, error) {
	return a.Service.Unsupersede(ctx, acc, id)
}

func (a *api) pin(pinned bool) func(context.Context, memory.Access, uuid.UUID, *place) (any, error) {
	return func(ctx context.Context, acc memory.Access, id uuid.UUID, _ *place) (any, error) {
		return a.Service.SetPinned(ctx, acc, id, pinned)
	}
}

func (a *api) status(c *gin.Context) {
	if a.Status == nil {
		c.JSON(http.StatusOK, gin.H{})
		return
	}
	p := principal(c)
	s, err := a.Status(c.Request.Context(), p.Has(auth.ScopeAdmin) && p.ProjectKey == "")
	if err != nil {
		fail(c, a.Logger, err)
		return
	}
	c.JSON(http.StatusOK, s)
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// jsonKind names the JSON type a Go type decodes from, for messages that must not show Go
// type names.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "an object"
}
