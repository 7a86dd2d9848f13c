package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Dims is the vector width the suite uses; small keeps the tests fast.
const Dims = 16

// Embedder is the embedder name the suite writes under.
const Embedder = "suite-v1-16"

// NewStore returns an empty store for one test.
type NewStore func(t *testing.T) store.Store

// Vec builds a unit vector pointing mostly along axis, tilted by tilt toward axis+1: two vectors
// of the same axis with small tilts are near-duplicates, different axes are orthogonal.
func Vec(axis int, tilt float64) store.Vector {
	v := make([]float32, Dims)
	v[axis%Dims] = float32(math.Cos(tilt))
	v[(axis+1)%Dims] = float32(math.Sin(tilt))
	return store.Vector{Embedder: Embedder, Dimensions: Dims, Values: v}
}

// RandomVec is a random unit vector, for filling a store.
func RandomVec(r *rand.Rand) store.Vector {
	v := make([]float32, Dims)
	var n float64
	for i := range v {
		f := r.NormFloat64()
		v[i] = float32(f)
		n += f * f
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return store.Vector{Embedder: Embedder, Dimensions: Dims, Values: v}
}

// NewWrite is a project write with suite defaults.
func NewWrite(project, text string, vec store.Vector) store.Write {
	return store.Write{
		ID: uuid.Must(uuid.NewV7()), Scope: store.ScopeProject, ScopeKey: project, Kind: store.KindFact, Text: text,
		Importance: 0.5, Confidence: 0.8, Provenance: store.Provenance{Agent: "suite", Source: "test"},
		Vector: vec, Actor: "suite",
	}
}

// ZeroVec is the vector an embedder gives text it has no tokens for.
func ZeroVec() store.Vector {
	return store.Vector{Embedder: Embedder, Dimensions: Dims, Values: make([]float32, Dims)}
}

// Insert writes w as a new row under its scope's lock, deciding nothing: for tests that need
// rows in a store.
func Insert(ctx context.Context, s store.Store, w store.Write) (store.Memory, error) {
	var m store.Memory
	err := s.WithScopeLock(ctx, w.Ref(), func(tx store.ScopeTx) error {
		var err error
		m, err = tx.Insert(ctx, w)
		return err
	})
	return m, err
}

// importRecords builds n records of project p, a second apart, each with history entries.
func importRecords(p string, n, history int) []store.ExportRecord {
	r := rand.New(rand.NewPCG(uint64(n), 9))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]store.ExportRecord, n)
	for i := range recs {
		at := base.Add(time.Duration(i) * time.Second)
		text := fmt.Sprintf("imported fact %d", i)
		m := store.Memory{ID: uuid.Must(uuid.NewV7()), Scope: store.ScopeProject, ScopeKey: p, Kind: store.KindFact, Text: text,
			Importance: 0.5, Confidence: 0.5, Embedder: Embedder, CreatedAt: at, UpdatedAt: at}
		hist := make([]store.HistoryEntry, history)
		for j := range hist {
			hist[j] = store.HistoryEntry{Event: store.EventAdd, AfterText: &text, Actor: "suite", CreatedAt: at.Add(time.Duration(j) * time.Millisecond)}
		}
		recs[i] = store.ExportRecord{Memory: m, Vector: RandomVec(r), History: hist}
	}
	return recs
}

// Run runs the conformance suite.
func Run(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	setup := func(t *testing.T) store.Store {
		t.Helper()
		s := newStore(t)
		require.NoError(t, s.EnsureVectorIndex(ctx, Embedder, Dims))
		return s
	}
	insert := func(t *testing.T, s store.Store, w store.Write) store.Memory {
		t.Helper()
		m, err := Insert(ctx, s, w)
		require.NoError(t, err)
		return m
	}
	// exact looks text up under tx, without neighbours.
	exact := func(t *testing.T, tx store.ScopeTx, text string) *store.Memory {
		t.Helper()
		c, err := tx.Lookup(ctx, text, store.Vector{}, nil)
		require.NoError(t, err)
		require.Empty(t, c.Neighbours, "no candidates, no neighbours")
		return c.Exact
	}
	// locked runs fn under the lock of project p.
	locked := func(t *testing.T, s store.Store, p string, fn func(tx store.ScopeTx) error) {
		t.Helper()
		require.NoError(t, s.WithScopeLock(ctx, store.Project(p), fn))
	}

	t.Run("InsertThenGet", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		m := insert(t, s, NewWrite("p", "CI runs on Buildkite", Vec(0, 0)))
		got, err := s.Get(ctx, m.ID)
		require.NoError(t, err)
		require.Equal(t, "CI runs on Buildkite", got.Text)
		require.Equal(t, store.ScopeProject, got.Scope)
		require.Equal(t, "p", got.ScopeKey)
		require.Equal(t, Embedder, got.Embedder)
		require.Equal(t, "suite", got.Provenance.Agent)
		require.Positive(t, got.Seq)
		require.Equal(t, m.Seq, got.Seq)
		h, err := s.History(ctx, got.ID)
		require.NoError(t, err)
		require.Len(t, h, 1)
		require.Equal(t, store.EventAdd, h[0].Event)
		require.Equal(t, "CI runs on Buildkite", *h[0].AfterText)
		require.Equal(t, "suite", h[0].Actor)
		require.Equal(t, "suite", h[0].Detail["agent"])
	})

	t.Run("LookupFindsTheNormalisedLiveTextOfTheScope", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		m := insert(t, s, NewWrite("p", "Use pnpm, not npm.", Vec(1, 0)))
		locked(t, s, "p", func(tx store.ScopeTx) error {
			got := exact(t, tx, "use   PNPM, not npm.")
			require.NotNil(t, got)
			require.Equal(t, m.ID, got.ID)
			require.Nil(t, exact(t, tx, "Use pnpm, not yarn."), "a lookup may follow a lookup")
			return nil
		})
		locked(t, s, "q", func(tx store.ScopeTx) error {
			require.Nil(t, exact(t, tx, "Use pnpm, not npm."), "another project's text is not a duplicate")
			return nil
		})
		_, err := s.SetArchived(ctx, m.ID, true, "old", "t")
		require.NoError(t, err)
		locked(t, s, "p", func(tx store.ScopeTx) error {
			require.Nil(t, exact(t, tx, "Use pnpm, not npm."), "archived rows are not duplicates")
			return nil
		})
	})

	t.Run("LookupLoadsLiveNeighboursOfTheScope", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		a := insert(t, s, NewWrite("p", "a", Vec(2, 0)))
		b := insert(t, s, NewWrite("p", "b", Vec(2, 0.3)))
		insert(t, s, NewWrite("q", "same vector, other project", Vec(2, 0)))
		archived := insert(t, s, NewWrite("p", "archived", Vec(2, 0.01)))
		_, err := s.SetArchived(ctx, archived.ID, true, "old", "t")
		require.NoError(t, err)
		other := NewWrite("p", "other embedder", store.Vector{Embedder: "suite-other-16", Dimensions: Dims, Values: Vec(2, 0).Values})
		insert(t, s, other)
		unknown := uuid.Must(uuid.NewV7())
		all := []uuid.UUID{b.ID, archived.ID, other.ID, a.ID, unknown}
		locked(t, s, "p", func(tx store.ScopeTx) error {
			c, err := tx.Lookup(ctx, "a", Vec(2, 0.05), all)
			require.NoError(t, err)
			require.NotNil(t, c.Exact, "the exact match comes with the neighbours")
			require.Equal(t, a.ID, c.Exact.ID)
			got := c.Neighbours
			require.Len(t, got, 2, "archived rows, other embedders' and unknown ids are no candidates")
			require.Equal(t, []uuid.UUID{a.ID, b.ID}, []uuid.UUID{got[0].ID, got[1].ID}, "best first")
			require.Equal(t, "a", got[0].Text, "neighbours arrive loaded")
			require.InDelta(t, math.Cos(0.05), got[0].Similarity, 1e-4)
			require.InDelta(t, math.Cos(0.25), got[1].Similarity, 1e-4)
			return nil
		})
	})

	t.Run("FoldRewritesTheRowAndRecordsIt", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		m := insert(t, s, NewWrite("p", "We use pnpm here", Vec(3, 0)))
		merged := []store.Merged{{Text: "We use pnpm here", Agent: "suite", At: time.Now().UTC().Truncate(time.Millisecond)}}
		var folded store.Memory
		locked(t, s, "p", func(tx store.ScopeTx) error {
			var err error
			folded, err = tx.Fold(ctx, store.FoldParams{
				ID: m.ID, Kind: store.KindConvention, Importance: 0.9, Confidence: 0.95, Pinned: true,
				DedupedCount: 1, MergedFrom: merged,
				Replacement: &store.Replacement{Text: "This repo uses pnpm", Vector: Vec(5, 0), Provenance: store.Provenance{Agent: "codex", Session: "s1"}},
				Before:      "We use pnpm here", After: "This repo uses pnpm", Actor: "bob", Detail: map[string]any{"similarity": 0.93},
			})
			return err
		})
		require.Equal(t, m.ID, folded.ID)
		require.Greater(t, folded.Seq, m.Seq, "a fold advances the change feed")
		got, err := s.Get(ctx, m.ID)
		require.NoError(t, err)
		require.Equal(t, folded, got, "Fold returns the row as stored")
		require.Equal(t, "This repo uses pnpm", got.Text)
		require.Equal(t, store.KindConvention, got.Kind)
		require.InDelta(t, 0.9, got.Importance, 1e-6)
		require.InDelta(t, 0.95, got.Confidence, 1e-6)
		require.True(t, got.Pinned)
		require.Equal(t, 1, got.DedupedCount)
		require.Len(t, got.MergedFrom, 1)
		require.Equal(t, merged[0].Text, got.MergedFrom[0].Text)
		require.Equal(t, store.Provenance{Agent: "codex", Session: "s1"}, got.Provenance)
		hits, err := s.Nearest(ctx, store.VectorQuery{Vector: Vec(5, 0), Scopes: []store.ScopeRef{store.Project("p")}, Limit: 1})
		require.NoError(t, err)
		require.Equal(t, m.ID, hits[0].ID)
		require.InDelta(t, 1, hits[0].Similarity, 1e-4, "the replacement's vector went with its text")
		h, err := s.History(ctx, m.ID)
		require.NoError(t, err)
		require.Len(t, h, 2)
		require.Equal(t, store.EventFold, h[1].Event)
		require.Equal(t, "We use pnpm here", *h[1].BeforeText)
		require.Equal(t, "This repo uses pnpm", *h[1].AfterText)
		require.Equal(t, "bob", h[1].Actor)
		require.InDelta(t, 0.93, h[1].Detail["similarity"], 1e-9)

		// Without a replacement the row keeps its text, vector and provenance.
		locked(t, s, "p", func(tx store.ScopeTx) error {
			_, err := tx.Fold(ctx, store.FoldParams{ID: m.ID, Kind: store.KindConvention, Importance: 0.9, Confidence: 0.95,
				DedupedCount: 2, MergedFrom: merged, Before: got.Text, After: got.Text, Actor: "bob"})
			return err
		})
		again, err := s.Get(ctx, m.ID)
		require.NoError(t, err)
		require.Equal(t, "This repo uses pnpm", again.Text)
		require.Equal(t, "codex", again.Provenance.Agent)
		require.Equal(t, 2, again.DedupedCount)
		require.False(t, again.Pinned)
		require.Greater(t, again.Seq, got.Seq)
		locked(t, s, "p", func(tx store.ScopeTx) error {
			ex := exact(t, tx, "this repo uses PNPM")
			require.NotNil(t, ex, "the text hash followed the replaced text")
			require.Equal(t, m.ID, ex.ID)
			return nil
		})
	})

	t.Run("WritesStayInTheLockedScope", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		q := insert(t, s, NewWrite("q", "a fact of project q", Vec(4, 0)))
		p := insert(t, s, NewWrite("p", "an archived fact of p", Vec(4, 0)))
		_, err := s.SetArchived(ctx, p.ID, true, "old", "t")
		require.NoError(t, err)
		for _, id := range []uuid.UUID{q.ID, p.ID} {
			err := s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
				_, err := tx.Fold(ctx, store.FoldParams{ID: id, Kind: store.KindFact, DedupedCount: 1, Before: "x", After: "x"})
				return err
			})
			require.ErrorIs(t, err, store.ErrNotFound, "a fold reaches only live rows of the locked scope")
			h, err := s.History(ctx, id)
			require.NoError(t, err)
			require.NotContains(t, events(h), store.EventFold)
		}
		err = s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
			_, err := tx.Insert(ctx, NewWrite("q", "smuggled into q", Vec(4, 0)))
			return err
		})
		require.Error(t, err, "an insert must be of the locked scope")
		live, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("q")}, Limit: 10})
		require.NoError(t, err)
		require.Len(t, live, 1)
	})

	t.Run("AFailedWriteLeavesNothing", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		live := insert(t, s, NewWrite("p", "written once", Vec(5, 0)))
		boom := errors.New("boom")
		err := s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
			_, err := tx.Lookup(ctx, "written once", Vec(5, 0), []uuid.UUID{live.ID})
			require.NoError(t, err)
			return boom
		})
		require.ErrorIs(t, err, boom, "fn's error comes back")
		// The insert fails after its add entry went out in the same batch: both go back.
		dup := NewWrite("p", "written once", Vec(5, 0))
		err = s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
			_, err := tx.Insert(ctx, dup)
			return err
		})
		require.ErrorIs(t, err, store.ErrConflict)
		_, err = s.Get(ctx, dup.ID)
		require.ErrorIs(t, err, store.ErrNotFound)
		h, err := s.History(ctx, dup.ID)
		require.NoError(t, err)
		require.Empty(t, h, "the add entry went back with the row")
		changes, err := s.Changes(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, changes, 1)
		require.Equal(t, live.ID, changes[0].ID)
	})

	t.Run("NothingFollowsTheFinalChange", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		var first store.Memory
		locked(t, s, "p", func(tx store.ScopeTx) error {
			var err error
			first, err = tx.Insert(ctx, NewWrite("p", "the final change", Vec(10, 0)))
			require.NoError(t, err)
			_, err = tx.Insert(ctx, NewWrite("p", "a second change", Vec(11, 0)))
			require.Error(t, err, "no call may follow Insert or Fold")
			_, err = tx.Fold(ctx, store.FoldParams{ID: first.ID, Kind: first.Kind, DedupedCount: 1, Before: first.Text, After: first.Text})
			require.Error(t, err)
			_, err = tx.Lookup(ctx, "the final change", Vec(10, 0), []uuid.UUID{first.ID})
			require.Error(t, err)
			return nil
		})
		live, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10})
		require.NoError(t, err)
		require.Len(t, live, 1)
		require.Equal(t, first.ID, live[0].ID)
		require.Zero(t, live[0].DedupedCount)
	})

	t.Run("ZeroVectorsNeverYieldNaN", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		party := insert(t, s, NewWrite("p", "🎉🎉🎉", ZeroVec()))
		fact := insert(t, s, NewWrite("p", "deploys go through argo", Vec(6, 0)))
		// An imported row may wait outside the ANN index, where an exact scan meets it.
		imported := NewWrite("p", "🚀🚀", ZeroVec())
		_, err := s.Import(ctx, []store.ExportRecord{{Memory: store.Memory{ID: imported.ID, Scope: imported.Scope, ScopeKey: "p",
			Kind: imported.Kind, Text: imported.Text, Importance: 0.5, Confidence: 0.5}, Vector: imported.Vector}})
		require.NoError(t, err)
		locked(t, s, "p", func(tx store.ScopeTx) error {
			c, err := tx.Lookup(ctx, "deploys go through argo cd", Vec(6, 0.1), []uuid.UUID{party.ID, fact.ID, imported.ID})
			require.NoError(t, err)
			require.Len(t, c.Neighbours, 1, "a zero-vector row has no similarity to anything")
			require.Equal(t, fact.ID, c.Neighbours[0].ID)
			c, err = tx.Lookup(ctx, "🎉🎉🎉", ZeroVec(), []uuid.UUID{party.ID, fact.ID, imported.ID})
			require.NoError(t, err)
			require.Empty(t, c.Neighbours, "a zero vector has no neighbours")
			require.NotNil(t, c.Exact, "identical texts still match")
			require.Equal(t, party.ID, c.Exact.ID)
			return nil
		})
		scopes := []store.ScopeRef{store.Project("p")}
		hits, err := s.Nearest(ctx, store.VectorQuery{Vector: Vec(6, 0.1), Scopes: scopes, Limit: 10})
		require.NoError(t, err)
		require.Len(t, hits, 1)
		hits, err = s.Nearest(ctx, store.VectorQuery{Vector: ZeroVec(), Scopes: scopes, Limit: 10})
		require.NoError(t, err)
		require.Empty(t, hits)
		for _, q := range []store.Vector{Vec(6, 0.1), ZeroVec()} {
			loaded, err := s.GetMany(ctx, []uuid.UUID{party.ID, fact.ID}, &q)
			require.NoError(t, err)
			require.Len(t, loaded, 2)
			for _, l := range loaded {
				if l.ID == party.ID || q.IsZero() {
					require.Nil(t, l.Similarity, "undefined similarity is unknown, not NaN")
					continue
				}
				require.NotNil(t, l.Similarity)
				require.InDelta(t, math.Cos(0.1), *l.Similarity, 1e-4)
			}
		}
	})

	t.Run("MatchTextFindsWholeTexts", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		party := insert(t, s, NewWrite("p", "🎉🎉🎉", ZeroVec()))
		gw := NewWrite("", "🎉 🎉🎉", ZeroVec())
		gw.Scope, gw.Kind = store.ScopeGlobal, store.KindPreference
		global := insert(t, s, gw)
		insert(t, s, NewWrite("q", "🎉🎉🎉", ZeroVec()))
		insert(t, s, NewWrite("p", "🎉🎉🎉 shipped", Vec(7, 0)))
		ids, err := s.MatchText(ctx, store.TextQuery{Text: "🎉🎉🎉", Scopes: []store.ScopeRef{store.Project("p"), store.Global}, Limit: 10})
		require.NoError(t, err)
		require.ElementsMatch(t, []uuid.UUID{party.ID}, ids, "whole texts only, of the asked scopes")
		ids, err = s.MatchText(ctx, store.TextQuery{Text: "🎉  🎉🎉", Scopes: []store.ScopeRef{store.Project("p"), store.Global}, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, []uuid.UUID{global.ID}, ids, "compared by NormalizeText")
		ids, err = s.MatchText(ctx, store.TextQuery{Text: "🎉 🎉🎉", Scopes: []store.ScopeRef{store.Global}, Kinds: []store.Kind{store.KindFact}, Limit: 10})
		require.NoError(t, err)
		require.Empty(t, ids, "kinds filter")
		_, err = s.SetArchived(ctx, party.ID, true, "old", "t")
		require.NoError(t, err)
		ids, err = s.MatchText(ctx, store.TextQuery{Text: "🎉🎉🎉", Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10})
		require.NoError(t, err)
		require.Empty(t, ids)
		ids, err = s.MatchText(ctx, store.TextQuery{Text: "🎉🎉🎉", Scopes: []store.ScopeRef{store.Project("p")}, IncludeArchived: true, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, []uuid.UUID{party.ID}, ids)
	})

	t.Run("TheScopeLockSerialisesWriters", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		// Each writer reads, then writes what it read plus one: without serialisation two
		// writers insert the same text at once (a unique violation) or fold over each other
		// (a lost count).
		const writers = 12
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for i := range writers {
			wg.Go(func() {
				errs[i] = s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
					c, err := tx.Lookup(ctx, "tests need TZ=UTC", Vec(8, 0), nil)
					if err != nil {
						return err
					}
					if c.Exact == nil {
						_, err = tx.Insert(ctx, NewWrite("p", "tests need TZ=UTC", Vec(8, 0)))
						return err
					}
					m := *c.Exact
					_, err = tx.Fold(ctx, store.FoldParams{ID: m.ID, Kind: m.Kind, Importance: m.Importance, Confidence: m.Confidence,
						DedupedCount: m.DedupedCount + 1, Before: m.Text, After: m.Text, Actor: "suite"})
					return err
				})
			})
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		live, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 100})
		require.NoError(t, err)
		require.Len(t, live, 1)
		require.Equal(t, writers-1, live[0].DedupedCount)
	})

	t.Run("EachScopeHasItsOwnLock", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		holding, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
				// The lock is taken with the first call on tx.
				if _, err := tx.Lookup(ctx, "anything", Vec(9, 0), nil); err != nil {
					return err
				}
				close(holding)
				<-release
				return nil
			})
		}()
		<-holding
		insert(t, s, NewWrite("q", "another project writes meanwhile", Vec(9, 0)))
		g := NewWrite("", "and so does global", Vec(9, 0))
		g.Scope = store.ScopeGlobal
		insert(t, s, g)
		close(release)
		require.NoError(t, <-done)
	})

	t.Run("ArchiveRestoreAndHistory", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		id := insert(t, s, NewWrite("p", "staging db is pg-stage-2", Vec(9, 0))).ID
		m, err := s.SetArchived(ctx, id, true, "obsolete", "alice")
		require.NoError(t, err)
		require.True(t, m.Archived())
		require.Equal(t, "obsolete", m.ArchivedReason)
		again, err := s.SetArchived(ctx, id, true, "obsolete", "alice")
		require.NoError(t, err, "archiving twice is idempotent")
		require.Equal(t, m.Seq, again.Seq)

		live, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}})
		require.NoError(t, err)
		require.Empty(t, live)
		hits, err := s.Nearest(ctx, store.VectorQuery{Vector: Vec(9, 0), Scopes: []store.ScopeRef{store.Project("p")}, Limit: 5})
		require.NoError(t, err)
		require.Empty(t, hits, "archived rows are excluded unless asked")
		hits, err = s.Nearest(ctx, store.VectorQuery{Vector: Vec(9, 0), Scopes: []store.ScopeRef{store.Project("p")}, IncludeArchived: true, Limit: 5})
		require.NoError(t, err)
		require.Len(t, hits, 1)
		archived, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, OnlyArchived: true})
		require.NoError(t, err)
		require.Len(t, archived, 1)

		// While archived, the same text may be written again as a new live row; restoring the
		// old one would then duplicate it, which is refused.
		dup := insert(t, s, NewWrite("p", "staging db is pg-stage-2", Vec(9, 0)))
		_, err = s.SetArchived(ctx, id, false, "", "alice")
		require.ErrorIs(t, err, store.ErrConflict)
		_, err = s.SetArchived(ctx, dup.ID, true, "dup", "alice")
		require.NoError(t, err)
		restored, err := s.SetArchived(ctx, id, false, "", "alice")
		require.NoError(t, err)
		require.False(t, restored.Archived())

		h, err := s.History(ctx, id)
		require.NoError(t, err)
		require.Equal(t, []store.Event{store.EventAdd, store.EventArchive, store.EventRestore}, events(h))
		require.Equal(t, "alice", h[1].Actor)
	})

	t.Run("PinUnpin", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		res := insert(t, s, NewWrite("p", "pin me", Vec(10, 0)))
		m, err := s.SetPinned(ctx, res.ID, true, "bob")
		require.NoError(t, err)
		require.True(t, m.Pinned)
		m, err = s.SetPinned(ctx, res.ID, false, "bob")
		require.NoError(t, err)
		require.False(t, m.Pinned)
		h, err := s.History(ctx, res.ID)
		require.NoError(t, err)
		require.Len(t, h, 3)
		_, err = s.SetPinned(ctx, uuid.Must(uuid.NewV7()), true, "bob")
		require.ErrorIs(t, err, store.ErrNotFound)
	})

	t.Run("ChangeFeedIsOrderedAndComplete", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := Insert(ctx, s, NewWrite("p"+string(rune('a'+i%4)), "fact "+string(rune('a'+i)), Vec(i, 0)))
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
		changes, err := s.Changes(ctx, 0, 1000)
		require.NoError(t, err)
		require.Len(t, changes, 20)
		for i := 1; i < len(changes); i++ {
			require.Greater(t, changes[i].Seq, changes[i-1].Seq)
		}
		last := changes[len(changes)-1].Seq
		_, err = s.SetArchived(ctx, changes[0].ID, true, "x", "t")
		require.NoError(t, err)
		more, err := s.Changes(ctx, last, 1000)
		require.NoError(t, err)
		require.Len(t, more, 1)
		require.True(t, more[0].Archived)
		require.NoError(t, s.RecordHits(ctx, map[uuid.UUID]int64{changes[1].ID: 2}))
		none, err := s.Changes(ctx, more[0].Seq, 1000)
		require.NoError(t, err)
		require.Empty(t, none, "hits do not advance the feed")
		m, err := s.Get(ctx, changes[1].ID)
		require.NoError(t, err)
		require.EqualValues(t, 2, m.HitCount)
		require.NotNil(t, m.LastHitAt)
	})

	t.Run("ExportImportRoundTrip", func(t *testing.T) {
		t.Parallel()
		src := setup(t)
		dst := setup(t)
		a := insert(t, src, NewWrite("p", "alpha", Vec(11, 0)))
		locked(t, src, "p", func(tx store.ScopeTx) error {
			_, err := tx.Fold(ctx, store.FoldParams{ID: a.ID, Kind: a.Kind, Importance: a.Importance, Confidence: a.Confidence,
				DedupedCount: 1, MergedFrom: []store.Merged{{Text: "alpha", At: time.Now().UTC()}},
				Replacement: &store.Replacement{Text: "alpha, rephrased", Vector: Vec(11, 0.05)}, Before: "alpha", After: "alpha, rephrased"})
			return err
		})
		b := insert(t, src, NewWrite("p", "beta", Vec(12, 0)))
		_, err := src.SetArchived(ctx, b.ID, true, "old", "t")
		require.NoError(t, err)
		insert(t, src, NewWrite("other", "not exported", Vec(13, 0)))

		var recs []store.ExportRecord
		require.NoError(t, src.Export(ctx, store.Project("p"), func(r store.ExportRecord) error { recs = append(recs, r); return nil }))
		require.Len(t, recs, 2)
		res, err := dst.Import(ctx, recs)
		require.NoError(t, err)
		require.Equal(t, store.ImportResult{Inserted: 2}, res)
		res, err = dst.Import(ctx, recs)
		require.NoError(t, err)
		require.Equal(t, store.ImportResult{Skipped: 2}, res, "import is idempotent")

		got, err := dst.Get(ctx, a.ID)
		require.NoError(t, err)
		want, err := src.Get(ctx, a.ID)
		require.NoError(t, err)
		require.Equal(t, want.Text, got.Text)
		require.Equal(t, want.MergedFrom[0].Text, got.MergedFrom[0].Text)
		require.Equal(t, want.DedupedCount, got.DedupedCount)
		require.True(t, want.CreatedAt.Equal(got.CreatedAt))
		hist, err := dst.History(ctx, a.ID)
		require.NoError(t, err)
		require.Len(t, hist, 3, "add + fold from the source, plus the import entry")
		archived, err := dst.Get(ctx, b.ID)
		require.NoError(t, err)
		require.True(t, archived.Archived())
		hits, err := dst.Nearest(ctx, store.VectorQuery{Vector: Vec(11, 0.05), Scopes: []store.ScopeRef{store.Project("p")}, Limit: 1})
		require.NoError(t, err)
		require.Equal(t, a.ID, hits[0].ID, "vectors survive the round trip")
		require.InDelta(t, 1, hits[0].Similarity, 1e-4)
		changes, err := dst.Changes(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, changes, 2, "imported rows reach the change feed")
	})
	// An export reads memories a page at a time and the history of each page between pages;
	// reading history while memory rows still streamed failed every project over one page.
	t.Run("ExportsLargeProjectsWithHistory", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		recs := importRecords("p", 1234, 3)
		_, err := s.Import(ctx, recs)
		require.NoError(t, err)
		var got []store.ExportRecord
		require.NoError(t, s.Export(ctx, store.Project("p"), func(r store.ExportRecord) error { got = append(got, r); return nil }))
		require.Len(t, got, len(recs))
		for i, r := range got {
			require.Equal(t, recs[i].Memory.ID, r.Memory.ID, "in creation order")
			require.Len(t, r.History, 4, "three copied entries and the import entry")
			require.Equal(t, recs[i].Vector.Values, r.Vector.Values)
		}
	})
	t.Run("ImportBatchesIsAllOrNothing", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		recs := importRecords("p", 30, 1)
		for name, fail := range map[string]store.ExportRecord{
			"the source fails":           {},
			"the store refuses a record": {Memory: recs[0].Memory, Vector: store.Vector{Embedder: Embedder, Dimensions: Dims, Values: []float32{1}}},
		} {
			_, err := s.ImportBatches(ctx, func(yield func([]store.ExportRecord, error) bool) {
				if !yield(recs[:10], nil) || !yield(recs[10:20], nil) {
					return
				}
				if fail.Memory.ID == uuid.Nil {
					yield(nil, errors.New("file went away"))
					return
				}
				yield([]store.ExportRecord{fail}, nil)
			})
			require.Error(t, err, name)
			c, err := s.Counts(ctx)
			require.NoError(t, err)
			require.Zero(t, c.Live+c.Archived, "%s: the batches before the failure are rolled back", name)
		}
		res, err := s.ImportBatches(ctx, func(yield func([]store.ExportRecord, error) bool) {
			_ = yield(recs[:10], nil) && yield(recs[10:], nil)
		})
		require.NoError(t, err)
		require.Equal(t, store.ImportResult{Inserted: 30}, res)
	})
	t.Run("EachEmbedderHasOneWidth", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		dims, err := s.VectorDimensions(ctx)
		require.NoError(t, err)
		require.Equal(t, map[string]int{Embedder: Dims}, dims, "the embedder's index registers its width")
		narrow := importRecords("p", 1, 0)
		narrow[0].Vector = store.Vector{Embedder: Embedder, Dimensions: 3, Values: []float32{1, 0, 0}}
		_, err = s.Import(ctx, narrow)
		require.Error(t, err, "a vector of another width is refused")
		c, err := s.Counts(ctx)
		require.NoError(t, err)
		require.Zero(t, c.Live+c.Archived)
	})
	t.Run("ImportedRowsAreFoundBeforeAndAfterIndexing", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		const n = 300
		r := rand.New(rand.NewPCG(5, 6))
		recs := make([]store.ExportRecord, n)
		for i := range recs {
			w := NewWrite("p", fmt.Sprintf("imported fact %d", i), RandomVec(r))
			recs[i] = store.ExportRecord{Memory: store.Memory{ID: w.ID, Scope: w.Scope, ScopeKey: w.ScopeKey, Kind: w.Kind, Text: w.Text,
				Importance: 0.5, Confidence: 0.5}, Vector: w.Vector}
		}
		_, err := s.Import(ctx, recs)
		require.NoError(t, err)
		// A store may defer the ANN index insertion of imported rows, but never their visibility.
		nearestIs := func(want store.ExportRecord) {
			t.Helper()
			hits, err := s.Nearest(ctx, store.VectorQuery{Vector: want.Vector, Scopes: []store.ScopeRef{store.Project("p")}, Limit: 3})
			require.NoError(t, err)
			require.NotEmpty(t, hits)
			require.Equal(t, want.Memory.ID, hits[0].ID)
			require.InDelta(t, 1, hits[0].Similarity, 1e-4)
		}
		nearestIs(recs[17])
		// A write may fold into an imported fact while it is still deferred.
		locked(t, s, "p", func(tx store.ScopeTx) error {
			c, err := tx.Lookup(ctx, "a new text", recs[5].Vector, []uuid.UUID{recs[5].Memory.ID, recs[6].Memory.ID})
			require.NoError(t, err)
			got := c.Neighbours
			require.Equal(t, recs[5].Memory.ID, got[0].ID)
			_, err = tx.Fold(ctx, store.FoldParams{ID: got[0].ID, Kind: got[0].Kind, DedupedCount: 1,
				Before: got[0].Text, After: got[0].Text})
			return err
		})

		before, err := s.Counts(ctx)
		require.NoError(t, err)
		require.LessOrEqual(t, before.ANNDeferred, int64(n))
		// Two indexers drain the queue together without doing a row twice.
		var mu sync.Mutex
		total := 0
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				for {
					moved, err := s.IndexDeferred(ctx, 7)
					if !assert.NoError(t, err) || moved == 0 {
						return
					}
					mu.Lock()
					total += moved
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		c, err := s.Counts(ctx)
		require.NoError(t, err)
		require.Zero(t, c.ANNDeferred)
		require.Equal(t, before.ANNDeferred, int64(total))
		moved, err := s.IndexDeferred(ctx, 10)
		require.NoError(t, err)
		require.Zero(t, moved)
		nearestIs(recs[17])
		nearestIs(recs[n-1])
		_, err = s.IndexDeferred(ctx, 0)
		require.Error(t, err, "limit must be positive")
	})
}

func events(h []store.HistoryEntry) []store.Event {
	out := make([]store.Event, len(h))
	for i, e := range h {
		out[i] = e.Event
	}
	return out
}
