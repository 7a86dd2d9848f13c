package storetest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
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

// Run runs the conformance suite against a fresh store per subtest, one exercise per concern
// (River's riverdrivertest layout): each lives in the file named for it.
func Run(t *testing.T, newStore NewStore) {
	k := &kit{ctx: context.Background(), newStore: newStore}
	exerciseWrites(t, k)
	exerciseLookups(t, k)
	exerciseScopeLock(t, k)
	exerciseLifecycle(t, k)
	exerciseChangeFeed(t, k)
	exerciseTransfer(t, k)
	exerciseEmbedders(t, k)
}

// kit is what every exercise shares: how to make a store, and the steps most subtests take.
type kit struct {
	ctx      context.Context
	newStore NewStore
}

// run runs fn as a parallel subtest called name, on an empty store of its own.
func (k *kit) run(t *testing.T, name string, fn func(t *testing.T, s store.Store)) {
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		fn(t, k.setup(t))
	})
}

// setup returns an empty store with the suite's vector index.
func (k *kit) setup(t *testing.T) store.Store {
	t.Helper()
	s := k.newStore(t)
	require.NoError(t, s.EnsureVectorIndex(k.ctx, Embedder, Dims))
	return s
}

// insert writes w as a new row.
func (k *kit) insert(t *testing.T, s store.Store, w store.Write) store.Memory {
	t.Helper()
	m, err := Insert(k.ctx, s, w)
	require.NoError(t, err)
	return m
}

// exact looks text up under tx, without neighbours.
func (k *kit) exact(t *testing.T, tx store.ScopeTx, text string) *store.Memory {
	t.Helper()
	c, err := tx.Lookup(k.ctx, text, store.Vector{}, nil)
	require.NoError(t, err)
	require.Empty(t, c.Neighbours, "no candidates, no neighbours")
	return c.Exact
}

// locked runs fn under the lock of project p.
func (k *kit) locked(t *testing.T, s store.Store, p string, fn func(tx store.ScopeTx) error) {
	t.Helper()
	require.NoError(t, s.WithScopeLock(k.ctx, store.Project(p), fn))
}

func events(h []store.HistoryEntry) []store.Event {
	out := make([]store.Event, len(h))
	for i, e := range h {
		out[i] = e.Event
	}
	return out
}
