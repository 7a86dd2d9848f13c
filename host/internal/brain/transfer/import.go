package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/memhost/memhost/host/internal/core/redact"
	"github.com/memhost/memhost/host/internal/core/store"
)

// batchSize is how many records one COPY into the store's staging table takes.
const batchSize = 2000

// ImportOptions are the write path's limits and redactor, which an import holds every record
// to, and an optional progress report.
type ImportOptions struct {
	MaxTextBytes  int // memory.max_text_bytes
	MergedFromMax int // memory.merged_from_max
	// Redactor removes secrets from every free-text field, as on the write path.
	Redactor *redact.Redactor
	// Progress, when set, is told how far the import is after every batch of records.
	Progress func(Progress)
}

// Phase names the pass over the file an import is in.
type Phase string

// An import reads its file twice: once to validate every record, once to load them.
const (
	PhaseValidate Phase = "validating"
	PhaseImport   Phase = "importing"
)

// Progress is how far an import is.
type Progress struct {
	Phase Phase
	Done  int // records read in this phase
	Total int // records in the file; 0 while validating
}

// ImportResult says what an import did.
type ImportResult struct {
	store.ImportResult
	Redactions int // secrets removed from the imported fields
}

// Import reads an export into scope, all or nothing. The export's own project key is replaced,
// so a project can move to a machine where it resolves differently; a memory that moves gets a
// stable derived id, and memories already present are skipped, so importing twice is a no-op.
//
// The first pass validates every record against the write path's limits and every vector
// against its embedder's width (in the database and in the file), holding one line at a time.
// Only a file without a fault is loaded: a second pass redacts secrets as the write path does
// and hands the records to the store in COPY batches of one transaction.
func Import(ctx context.Context, st store.Store, scope store.ScopeRef, src io.ReadSeeker, opts ImportOptions) (ImportResult, error) {
	if opts.Redactor == nil || opts.MaxTextBytes <= 0 || opts.MergedFromMax < 0 {
		return ImportResult{}, errors.New("import: the options need a redactor and the write path's limits")
	}
	stored, err := st.VectorDimensions(ctx)
	if err != nil {
		return ImportResult{}, fmt.Errorf("import: %w", err)
	}
	check := newChecker(opts, scope, stored)
	report := func(p Progress) {
		if opts.Progress != nil {
			opts.Progress(p)
		}
	}
	total, err := readRecords(ctx, src, check.record, func(done int) { report(Progress{Phase: PhaseValidate, Done: done}) })
	if err != nil {
		return ImportResult{}, err
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return ImportResult{}, fmt.Errorf("import: rewind: %w", err)
	}

	// The load reads ahead of the store: one goroutine decodes, checks and redacts the next
	// batch while the store copies the one before, so the file's cost and the database's overlap.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	scrub := newScrubber(opts.Redactor)
	ready := make(chan prepared, 1)
	var wg sync.WaitGroup
	wg.Go(func() { prepare(ctx, src, scope, check, scrub, ready) })
	done := 0
	res, err := st.ImportBatches(ctx, func(yield func([]store.ExportRecord, error) bool) {
		for b := range ready {
			if !yield(b.records, b.err) || b.err != nil {
				return
			}
			done += len(b.records)
			report(Progress{Phase: PhaseImport, Done: done, Total: total})
		}
	})
	cancel()
	wg.Wait()
	if err != nil {
		return ImportResult{}, err
	}
	return ImportResult{ImportResult: res, Redactions: scrub.found}, nil
}

// prepared is one batch ready for the store, or the error that ends the load.
type prepared struct {
	records []store.ExportRecord
	err     error
}

// prepare reads the file again, holds every record to the rules again (in case the file
// changed since the first pass), redacts it and sends batches of them to ready, which it
// closes at the end. It stops when ctx ends.
func prepare(ctx context.Context, src io.Reader, scope store.ScopeRef, check *checker, scrub *scrubber, ready chan<- prepared) {
	defer close(ready)
	send := func(b prepared) error {
		select {
		case ready <- b:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	batch := make([]store.ExportRecord, 0, batchSize)
	_, err := readRecords(ctx, src, func(line int, r *Record) error {
		if err := check.record(line, r); err != nil {
			return err
		}
		scrub.record(r)
		batch = append(batch, r.exportRecord(scope))
		if len(batch) < batchSize {
			return nil
		}
		err := send(prepared{records: batch})
		batch = make([]store.ExportRecord, 0, batchSize)
		return err
	}, nil)
	if err == nil && len(batch) > 0 {
		err = send(prepared{records: batch})
	}
	if err != nil && ctx.Err() == nil {
		_ = send(prepared{err: err})
	}
}
