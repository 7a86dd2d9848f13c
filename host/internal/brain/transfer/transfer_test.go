package transfer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain/transfer"
	"github.com/memhost/memhost/host/internal/core/redact"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/core/store/storetest"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// bundle is one test's store and the import options the CLI would use.
type bundle struct {
	store *pgstore.Store
	opts  transfer.ImportOptions
}

func setup(t *testing.T) bundle {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool)
	require.NoError(t, s.EnsureVectorIndex(context.Background(), storetest.Embedder, storetest.Dims))
	r, err := redact.New()
	require.NoError(t, err)
	return bundle{store: s, opts: transfer.ImportOptions{MaxTextBytes: 16384, MergedFromMax: 20, Redactor: r}}
}

func (b bundle) importString(scope store.ScopeRef, export string) (transfer.ImportResult, error) {
	return transfer.Import(context.Background(), b.store, scope, strings.NewReader(export), b.opts)
}

func (b bundle) export(t *testing.T, scope store.ScopeRef) string {
	t.Helper()
	var buf bytes.Buffer
	_, err := transfer.Export(context.Background(), b.store, scope, &buf)
	require.NoError(t, err)
	return buf.String()
}

// stored counts every memory in the store, live and archived.
func (b bundle) stored(t *testing.T) int64 {
	t.Helper()
	c, err := b.store.Counts(context.Background())
	require.NoError(t, err)
	return c.Live + c.Archived
}

// records builds n export records of project p, each with merged text and a history, as an
// export of a real project carries them.
func records(n int, p string) []transfer.Record {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]transfer.Record, n)
	for i := range out {
		at := base.Add(time.Duration(i) * time.Second)
		text := fmt.Sprintf("imported fact number %d", i)
		first := fmt.Sprintf("fact number %d, first wording", i)
		out[i] = transfer.Record{
			ID: uuid.Must(uuid.NewV7()), Scope: store.ScopeProject, Project: p, Kind: store.KindFact, Text: text,
			Importance: 0.5, Confidence: 0.8, Provenance: store.Provenance{Agent: "claude-code", Session: "s-1", Source: "mcp"},
			DedupedCount: 1, MergedFrom: []store.Merged{{Text: first, Agent: "codex", At: at}},
			CreatedAt: at, UpdatedAt: at.Add(time.Minute),
			Embedding: transfer.Embedding{Embedder: storetest.Embedder, Dimensions: storetest.Dims, Values: storetest.RandomVec(r).Values},
			History: []store.HistoryEntry{
				{Event: store.EventAdd, AfterText: &first, Actor: "codex", CreatedAt: at, Detail: map[string]any{"agent": "codex"}},
				{Event: store.EventFold, BeforeText: &first, AfterText: &text, Actor: "claude-code", CreatedAt: at.Add(time.Minute),
					Detail: map[string]any{"similarity": 0.93}},
			},
		}
	}
	return out
}

// storeRecords is recs as the store takes them, for loading a source store directly.
func storeRecords(recs []transfer.Record) []store.ExportRecord {
	out := make([]store.ExportRecord, len(recs))
	for i, r := range recs {
		out[i] = store.ExportRecord{
			Memory: store.Memory{ID: r.ID, Scope: r.Scope, ScopeKey: r.Project, Kind: r.Kind, Text: r.Text, Importance: r.Importance,
				Confidence: r.Confidence, Provenance: r.Provenance, Embedder: r.Embedding.Embedder, DedupedCount: r.DedupedCount,
				MergedFrom: r.MergedFrom, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt},
			Vector:  store.Vector{Embedder: r.Embedding.Embedder, Dimensions: r.Embedding.Dimensions, Values: r.Embedding.Values},
			History: r.History,
		}
	}
	return out
}

// encode renders records as an export of project p.
func encode(t *testing.T, p string, recs []transfer.Record) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	require.NoError(t, enc.Encode(transfer.Header{Format: transfer.FormatVersion, Scope: "project", Project: p, ExportedAt: time.Now().UTC()}))
	for _, r := range recs {
		require.NoError(t, enc.Encode(r))
	}
	return b.String()
}

// decode parses an export back into its records.
func decode(t *testing.T, export string) []transfer.Record {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(export), "\n")
	out := make([]transfer.Record, 0, len(lines)-1)
	for _, l := range lines[1:] {
		var r transfer.Record
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		out = append(out, r)
	}
	return out
}

func TestRoundTripIsLosslessAndIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, dst := setup(t), setup(t)
	var ids []uuid.UUID
	for i := range 25 {
		m, err := storetest.Insert(ctx, src.store, storetest.NewWrite("laptop/key", fmt.Sprintf("fact number %d", i), storetest.Vec(i, 0)))
		require.NoError(t, err)
		ids = append(ids, m.ID)
	}
	_, err := src.store.SetPinned(ctx, ids[3], true, "t")
	require.NoError(t, err)
	_, err = src.store.SetArchived(ctx, store.ArchiveParams{ID: ids[4], Archived: true, Reason: "old", Actor: "t"})
	require.NoError(t, err)

	exported := src.export(t, store.Project("laptop/key"))
	require.Len(t, decode(t, exported), 25, "archived rows are exported too")

	res, err := dst.importString(store.Project("server/key"), exported)
	require.NoError(t, err)
	require.Equal(t, 25, res.Inserted)
	res, err = dst.importString(store.Project("server/key"), exported)
	require.NoError(t, err)
	require.Equal(t, store.ImportResult{Skipped: 25}, res.ImportResult)

	moved, err := dst.store.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("server/key")}, OnlyArchived: true})
	require.NoError(t, err)
	require.Len(t, moved, 1)
	got := moved[0]
	require.NotEqual(t, ids[4], got.ID, "a memory moved to another project gets a derived id")
	require.Equal(t, "fact number 4", got.Text)
	require.Equal(t, "server/key", got.ScopeKey)
	// Importing into its own project again keeps ids and skips what is there.
	res, err = src.importString(store.Project("laptop/key"), exported)
	require.NoError(t, err)
	require.Equal(t, store.ImportResult{Skipped: 25}, res.ImportResult)
	hw, err := src.store.History(ctx, ids[4])
	require.NoError(t, err)
	hg, err := dst.store.History(ctx, got.ID)
	require.NoError(t, err)
	require.Len(t, hg, len(hw)+1)
	require.Equal(t, store.EventImport, hg[len(hg)-1].Event)
}

// TestExportRoundTripAt10K moves a 10K-memory project with merged texts and history through
// two machines. Exports of more than one page (500) failed with "conn busy".
func TestExportRoundTripAt10K(t *testing.T) {
	t.Parallel()
	laptop, server := setup(t), setup(t)
	want := records(10_000, "laptop/app")
	loaded, err := laptop.store.Import(context.Background(), storeRecords(want))
	require.NoError(t, err)
	require.Equal(t, 10_000, loaded.Inserted)

	first := laptop.export(t, store.Project("laptop/app"))
	res, err := server.importString(store.Project("server/app"), first)
	require.NoError(t, err)
	require.Equal(t, store.ImportResult{Inserted: 10_000}, res.ImportResult)
	got := decode(t, server.export(t, store.Project("server/app")))
	require.Len(t, got, len(want))
	for i, w := range want {
		g := got[i] // exports are in creation order
		require.Equal(t, w.Text, g.Text)
		require.Equal(t, w.Provenance, g.Provenance)
		require.Equal(t, w.MergedFrom[0].Text, g.MergedFrom[0].Text)
		require.True(t, w.CreatedAt.Equal(g.CreatedAt))
		require.Equal(t, w.Embedding.Values, g.Embedding.Values)
		require.Len(t, g.History, len(w.History)+2, "the history, plus one import entry per machine")
		for j, h := range w.History {
			require.Equal(t, h.Event, g.History[j].Event)
			require.Equal(t, *h.AfterText, *g.History[j].AfterText)
			require.True(t, h.CreatedAt.Equal(g.History[j].CreatedAt))
		}
	}
}
