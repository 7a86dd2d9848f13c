package brain

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/memhost/memhost/host/internal/brain/projectmap"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/project"
	"github.com/memhost/memhost/host/internal/core/store"
)

// MapView is a project's map as the surfaces show it.
type MapView struct {
	Project     string    `json:"project"`
	GeneratedAt time.Time `json:"generated_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Fingerprint string    `json:"fingerprint,omitempty"`
	// Stale is set when the map is older than the configured maximum age.
	Stale bool `json:"stale"`
	// Summary is the compact text the banner embeds.
	Summary string `json:"summary"`
	// Map is the whole map in projectmap's JSON form (docs/project-map.md).
	Map json.RawMessage `json:"map,omitempty"`
	// Redactions counts the secrets replaced in the map as it was stored (on a write only).
	Redactions int `json:"redactions,omitempty"`
}

func (s *Service) mapView(m store.ProjectMap) MapView {
	return MapView{Project: m.ScopeKey, GeneratedAt: m.GeneratedAt, UpdatedAt: m.UpdatedAt, Fingerprint: m.Fingerprint,
		Stale: s.mapStale(m.GeneratedAt), Summary: m.Summary, Map: json.RawMessage(m.Map)}
}

// mapStale is projectmap's staleness rule at the host's clock and configured age.
func (s *Service) mapStale(generatedAt time.Time) bool {
	return projectmap.Stale(generatedAt, s.now(), s.cfg.MapMaxAge)
}

// PutMap stores a map uploaded by the machine that can see the project (its JSON form,
// checked against projectmap's format and limits, and not from beyond the host's clock),
// replacing the project's map.
func (s *Service) PutMap(ctx context.Context, a memory.Access, data []byte) (MapView, error) {
	if err := check(a); err != nil {
		return MapView{}, err
	}
	m, err := projectmap.Decode(data)
	if err == nil {
		err = m.CheckClock(s.now())
	}
	if err != nil {
		return MapView{}, mapFieldErr(err)
	}
	return s.storeMap(ctx, a.Project, m)
}

// storeMap redacts a map, uploaded or built here, as every memory is on its way in, and
// stores it with the summary the banner shows, made from the redacted map.
func (s *Service) storeMap(ctx context.Context, key string, m projectmap.Map) (MapView, error) {
	redactions := m.Redact(s.mem.Redact)
	// Re-encoded, not stored as sent: the stored form is exactly the fields this host knows.
	data, err := json.Marshal(m)
	if err != nil {
		return MapView{}, err
	}
	pm, err := s.st.PutMap(ctx, store.ProjectMap{ScopeKey: key, Map: data, Summary: m.Summary(s.cfg.MapSummaryBytes),
		Fingerprint: m.Fingerprint, GeneratedAt: m.GeneratedAt})
	if err != nil {
		return MapView{}, err
	}
	v := s.mapView(pm)
	v.Redactions = redactions
	return v, nil
}

// mapFieldErr turns projectmap's validation error into the surfaces' field error.
func mapFieldErr(err error) error {
	var fe *rules.FieldError
	if errors.As(err, &fe) {
		field := "map." + fe.Field
		if fe.Field == "map" {
			field = "map"
		}
		return rules.Errf(field, "%s", fe.Message)
	}
	return err
}

// MapRequest asks for a project's map.
type MapRequest struct {
	// Dir is the project's directory when the host can see it (a cwd the caller passed). A
	// map that is missing or stale is then built here, and Refresh rebuilds it regardless.
	Dir     string
	Refresh bool
}

// Map returns the project's map. When req.Dir is a directory on this host that belongs to
// the project, a missing or stale map (or any, with Refresh) is built from it first.
func (s *Service) Map(ctx context.Context, a memory.Access, req MapRequest) (MapView, error) {
	if err := check(a); err != nil {
		return MapView{}, err
	}
	cur, err := s.st.ProjectMap(ctx, a.Project)
	if err != nil && !errors.Is(err, rules.ErrNotFound) {
		return MapView{}, err
	}
	have := err == nil
	if req.Refresh || !have || s.mapStale(cur.GeneratedAt) {
		dir, ok := s.visibleDir(a.Project, req.Dir)
		switch {
		case ok:
			return s.RefreshMap(ctx, a, dir)
		case req.Refresh:
			return MapView{}, rules.Errf("refresh", "the memhost host cannot see this project's directory (pass cwd when the host runs on the same machine); run `memhost project map refresh` in the project instead")
		}
	}
	if !have {
		return MapView{}, notFound("project %q has no map yet: run `memhost project map refresh` in the project (or pass cwd when the host runs on the same machine)", a.Project)
	}
	return s.mapView(cur), nil
}

// visibleDir reports whether dir is a directory on this host whose project is key.
func (s *Service) visibleDir(key, dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", false
	}
	id, err := project.Resolve(dir)
	if err != nil || id.Key != key {
		return "", false
	}
	return id.Root, true
}

// RefreshMap builds the map of dir, the project's directory on this machine, and stores it.
func (s *Service) RefreshMap(ctx context.Context, a memory.Access, dir string) (MapView, error) {
	if err := check(a); err != nil {
		return MapView{}, err
	}
	m, err := projectmap.Build(ctx, dir, projectmap.Options{Now: s.now})
	if errors.Is(err, projectmap.ErrNotDirectory) {
		return MapView{}, rules.Errf("dir", "is not a readable directory")
	}
	if err != nil {
		return MapView{}, mapFieldErr(err)
	}
	return s.storeMap(ctx, a.Project, m)
}
