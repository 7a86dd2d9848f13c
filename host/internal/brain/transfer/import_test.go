package transfer_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain/transfer"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/storetest"
)

// TestImportRejectsAVectorOfTheWrongWidth: a 3-dimensional vector for a 16-dimensional
// embedder once went in, and every search in its project failed from then on.
func TestImportRejectsAVectorOfTheWrongWidth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	recs := records(4, "p")
	recs[3].Embedding = transfer.Embedding{Embedder: storetest.Embedder, Dimensions: 3, Values: []float32{1, 0, 0}}
	_, err := b.importString(store.Project("p"), encode(t, "p", recs))
	require.EqualError(t, err, "import: line 5: embedding.dimensions: 3 does not match embedder suite-v1-16, whose vectors have 16 dimensions (the database)")
	require.Zero(t, b.stored(t), "nothing is imported")

	// An embedder the database has not seen yet: its first vector in the file sets the width.
	recs = records(3, "p")
	for i, dims := range []int{4, 4, 5} {
		recs[i].Embedding = transfer.Embedding{Embedder: "other-v1", Dimensions: dims, Values: make([]float32, dims)}
		recs[i].Embedding.Values[0] = 1
	}
	_, err = b.importString(store.Project("p"), encode(t, "p", recs))
	require.EqualError(t, err, "import: line 4: embedding.dimensions: 5 does not match embedder other-v1, whose vectors have 4 dimensions (line 2)")
	require.Zero(t, b.stored(t))

	// The store is not poisoned: writes and searches in the project work.
	_, err = storetest.Insert(ctx, b.store, storetest.NewWrite("p", "still writable", storetest.Vec(1, 0)))
	require.NoError(t, err)
	hits, err := b.store.Nearest(ctx, store.VectorQuery{Vector: storetest.Vec(1, 0), Scopes: []store.ScopeRef{store.Project("p")}, Limit: 1})
	require.NoError(t, err)
	require.Len(t, hits, 1)
}

// TestImportIsAllOrNothing: a bad record late in the file used to fail the import after the
// batches before it had committed.
func TestImportIsAllOrNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	recs := records(3000, "p")
	recs[2498].Kind = "rumour" // line 2,500: the header is line 1
	_, err := b.importString(store.Project("p"), encode(t, "p", recs))
	require.ErrorContains(t, err, `import: line 2500: kind: "rumour" is not one of fact, decision`)
	require.Zero(t, b.stored(t), "nothing is imported, not even the batches before the bad line")
}

func TestImportHoldsRecordsToTheWriteLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	good := func() transfer.Record { return records(1, "p")[0] }
	for name, tc := range map[string]struct {
		edit func(r *transfer.Record)
		want string
	}{
		"oversized agent": {func(r *transfer.Record) { r.Provenance.Agent = strings.Repeat("a", 100<<10) },
			"provenance.agent: is 102400 bytes; the limit is 200 bytes"},
		"escape in agent": {func(r *transfer.Record) { r.Provenance.Agent = "\x1b[31mred" },
			"provenance.agent: must not contain control characters (found U+001B)"},
		"newline in session": {func(r *transfer.Record) { r.Provenance.Session = "a\nb" },
			"provenance.session: must not contain control characters (found U+000A)"},
		"merged_from over the bound": {func(r *transfer.Record) {
			r.MergedFrom = make([]store.Merged, 5000)
			for i := range r.MergedFrom {
				r.MergedFrom[i] = store.Merged{Text: "x", At: r.CreatedAt}
			}
		}, "merged_from: has 5000 entries; the limit is 20 (memory.merged_from_max)"},
		"text over the limit": {func(r *transfer.Record) { r.Text = strings.Repeat("t", 16385) },
			"text: is 16385 bytes; the limit is 16384 bytes"},
		"blank text":          {func(r *transfer.Record) { r.Text = " \n" }, "text: must not be empty or only invisible characters"},
		"NUL in text":         {func(r *transfer.Record) { r.Text = "a\x00b" }, "text: must not contain NUL bytes"},
		"importance over one": {func(r *transfer.Record) { r.Importance = 1.5 }, "importance: 1.5 is out of range 0..1"},
		"missing id":          {func(r *transfer.Record) { r.ID = uuid.Nil }, "id: is missing"},
		"unknown scope":       {func(r *transfer.Record) { r.Scope = "session" }, `scope: "session" is not one of project, global`},
		"future timestamp": {func(r *transfer.Record) { r.CreatedAt = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC) },
			"created_at: 2100-01-01T00:00:00Z is in the future"},
		"NUL in archive reason": {func(r *transfer.Record) { r.ArchivedReason = "old\x00" }, "archived_reason: must not contain control characters (found U+0000)"},
		"long archive reason": {func(r *transfer.Record) { r.ArchivedReason = strings.Repeat("r", 501) },
			"archived_reason: is 501 bytes; the limit is 500 bytes"},
		"bad embedder name": {func(r *transfer.Record) { r.Embedding.Embedder = "Bad Name" }, `embedding.embedder: "Bad Name" must be 1 to 63 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit`},
		"short vector": {func(r *transfer.Record) { r.Embedding.Values = r.Embedding.Values[:15] },
			"embedding.values: has 15 values; dimensions says 16"},
		"unknown history event": {func(r *transfer.Record) { r.History[1].Event = "rewrite" }, `history[1].event: "rewrite" is not a history event`},
		"escape in history actor": {func(r *transfer.Record) { r.History[0].Actor = "\x1b]0;owned\x07" },
			"history[0].actor: must not contain control characters (found U+001B)"},
		"huge history detail": {func(r *transfer.Record) { r.History[0].Detail = map[string]any{"x": strings.Repeat("d", 5000)} },
			"history[0].detail: is 5008 bytes of JSON; the limit is 4096 bytes"},
		"merged text with NUL": {func(r *transfer.Record) { r.MergedFrom[0].Text = "\x00" }, "merged_from[0].text: must not contain NUL bytes"},
	} {
		r := good()
		tc.edit(&r)
		_, err := b.importString(store.Project("p"), encode(t, "p", []transfer.Record{good(), r}))
		require.EqualError(t, err, "import: line 3: "+tc.want, name)
	}
	require.Zero(t, b.stored(t))
}

func TestImportKeepsLayerKindsInProjects(t *testing.T) {
	t.Parallel()
	b := setup(t)
	recs := records(2, "p")
	recs[1].Kind = store.KindGoal
	_, err := b.importString(store.Global, encode(t, "p", recs))
	require.EqualError(t, err, "import: line 3: kind: a goal belongs to a project and cannot be imported into the global scope")
	require.Zero(t, b.stored(t))
	res, err := b.importString(store.Project("p"), encode(t, "p", recs))
	require.NoError(t, err)
	require.Equal(t, 2, res.Inserted, "a project's goal travels with its memories")
}

// TestImportExplainsMalformedLines: the messages speak of the file's fields, never of Go types.
func TestImportExplainsMalformedLines(t *testing.T) {
	t.Parallel()
	b := setup(t)
	export := encode(t, "p", records(1, "p"))
	header, line, _ := strings.Cut(strings.TrimSpace(export), "\n")
	for name, tc := range map[string]struct{ input, want string }{
		"no header":          {line, "import: line 1: not a memhost export header"},
		"future format":      {`{"memhost_export":99}` + "\n" + line, "import: line 1: export format 99 is newer than this memhost reads (1)"},
		"empty":              {"\n\n", "import: the input is empty; an export starts with a header line"},
		"unknown field":      {header + "\n" + strings.Replace(line, `"kind"`, `"colour":"red","kind"`, 1), `import: line 2: unknown field "colour"`},
		"wrong type":         {header + "\n" + strings.Replace(line, `"importance":0.5`, `"importance":"high"`, 1), "import: line 2: importance: expected a number, got string"},
		"float32 overflow":   {header + "\n" + strings.Replace(line, `"values":[`, `"values":[1e39,`, 1), "import: line 2: embedding.values[0]: number 1e39 is out of range"},
		"id not a string":    {header + "\n" + strings.Replace(line, `"id":"`, `"id":7,"x":"`, 1), "import: line 2: id: expected a string, got number"},
		"trailing data":      {header + "\n" + line + ` {"id":1}`, "import: line 2: unexpected data after the record"},
		"cut short":          {header + "\n" + line[:len(line)/2], "import: line 2: the record is cut short"},
		"string in a vector": {header + "\n" + strings.Replace(line, `"values":[`, `"values":["0.5",`, 1), `import: line 2: embedding.values[0]: expected a number, got "0.5"`},
		"not JSON":           {header + "\n" + "hello", "import: line 2: not valid JSON (at byte 1: invalid character 'h' looking for beginning of value)"},
	} {
		_, err := b.importString(store.Project("p"), tc.input)
		require.EqualError(t, err, tc.want, name)
	}
	require.Zero(t, b.stored(t))
}

// fakeToken is a GitHub token shape, generated so that no real-looking secret sits in the
// repository.
func fakeToken() string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := []byte("ghp_")
	for range 36 {
		b = append(b, alnum[rand.IntN(len(alnum))])
	}
	return string(b)
}

func TestImportRedactsSecrets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tok, other := fakeToken(), fakeToken()
	recs := records(2, "p")
	r := &recs[0]
	r.Text = "the CI token is " + tok
	r.Provenance.Agent = "bot " + tok
	archived := r.CreatedAt.Add(time.Hour)
	r.ArchivedAt, r.ArchivedReason = &archived, "rotated "+tok
	r.MergedFrom[0].Text = "old token " + tok
	r.History[0].AfterText = &r.MergedFrom[0].Text
	r.History[0].Detail = map[string]any{"reason": "leaked " + tok, "nested": []any{tok}}
	// Two texts that differ only in their secret are one text once redacted: the second is
	// kept, archived, instead of being dropped.
	recs[1].Text = "the CI token is " + other

	res, err := b.importString(store.Project("p"), encode(t, "p", recs))
	require.NoError(t, err)
	require.Equal(t, 2, res.Inserted)
	require.GreaterOrEqual(t, res.Redactions, 7)

	exported := b.export(t, store.Project("p"))
	require.NotContains(t, exported, tok)
	require.NotContains(t, exported, other)
	require.Contains(t, exported, "[REDACTED:github-pat]")
	got, err := b.store.Get(ctx, recs[0].ID)
	require.NoError(t, err)
	require.Equal(t, "the CI token is [REDACTED:github-pat]", got.Text)
	require.Equal(t, "bot [REDACTED:github-pat]", got.Provenance.Agent)
	require.Equal(t, "rotated [REDACTED:github-pat]", got.ArchivedReason)
	second, err := b.store.Get(ctx, recs[1].ID)
	require.NoError(t, err)
	require.Equal(t, got.Text, second.Text)
	require.False(t, second.Archived(), "the first record was archived in the file, so this one stays live")
}

func TestImportRedactionKeepsOneLiveText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	recs := records(2, "p")
	recs[0].Text = "deploy token " + fakeToken()
	recs[1].Text = "deploy token " + fakeToken()
	_, err := b.importString(store.Project("p"), encode(t, "p", recs))
	require.NoError(t, err)
	first, err := b.store.Get(ctx, recs[0].ID)
	require.NoError(t, err)
	second, err := b.store.Get(ctx, recs[1].ID)
	require.NoError(t, err)
	require.False(t, first.Archived())
	require.True(t, second.Archived(), "nothing is dropped: the duplicate is kept, archived")
	require.Equal(t, "import: duplicate of another live memory in the same import", second.ArchivedReason)
}

func TestImportReportsProgress(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var seen []transfer.Progress
	b.opts.Progress = func(p transfer.Progress) { seen = append(seen, p) }
	_, err := b.importString(store.Project("p"), encode(t, "p", records(4500, "p")))
	require.NoError(t, err)
	require.Equal(t, []transfer.Progress{
		{Phase: transfer.PhaseValidate, Done: 2000},
		{Phase: transfer.PhaseValidate, Done: 4000},
		{Phase: transfer.PhaseImport, Done: 2000, Total: 4500},
		{Phase: transfer.PhaseImport, Done: 4000, Total: 4500},
		{Phase: transfer.PhaseImport, Done: 4500, Total: 4500},
	}, seen)
}
