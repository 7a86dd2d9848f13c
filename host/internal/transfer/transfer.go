package transfer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memhost/memhost/host/internal/store"
)

// batchSize is how many records one store.Import (one COPY) takes.
const batchSize = 2000

// maxLineBytes bounds one JSONL line (a memory, its vector and its history).
const maxLineBytes = 16 << 20

// Export writes scope's memories as JSONL to w and returns how many it wrote.
func Export(ctx context.Context, st store.Store, scope store.ScopeRef, w io.Writer) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Header{Format: FormatVersion, Scope: string(scope.Scope), Project: scope.Key, ExportedAt: time.Now().UTC()}); err != nil {
		return 0, fmt.Errorf("export: write header: %w", err)
	}
	n := 0
	err := st.Export(ctx, scope, func(r store.ExportRecord) error {
		n++
		return enc.Encode(recordOf(r))
	})
	if err != nil {
		return n, err
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("export: flush: %w", err)
	}
	return n, nil
}

// Import reads an export and inserts its memories into scope (the export's own project key
// is replaced, so a project can move to a machine where it resolves differently; a memory that
// moves gets a stable derived id). Memories already present are skipped, so importing twice is
// a no-op. Records are validated as they are read; each batch is one transaction.
func Import(ctx context.Context, st store.Store, scope store.ScopeRef, r io.Reader, maxTextBytes int) (store.ImportResult, error) {
	var total store.ImportResult
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), maxLineBytes)
	line := 0
	var batch []store.ExportRecord
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		res, err := st.Import(ctx, batch)
		if err != nil {
			return err
		}
		total.Inserted += res.Inserted
		total.Skipped += res.Skipped
		batch = batch[:0]
		return nil
	}
	for sc.Scan() {
		line++
		raw := sc.Bytes()
		if len(strings.TrimSpace(string(raw))) == 0 {
			continue
		}
		if line == 1 {
			var h Header
			if err := json.Unmarshal(raw, &h); err != nil || h.Format == 0 {
				return total, fmt.Errorf("import: line 1: not a memhost export header")
			}
			if h.Format > FormatVersion {
				return total, fmt.Errorf("import: export format %d is newer than this memhost (%d)", h.Format, FormatVersion)
			}
			continue
		}
		var rec Record
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return total, fmt.Errorf("import: line %d: %w", line, err)
		}
		if err := validate(rec, maxTextBytes); err != nil {
			return total, fmt.Errorf("import: line %d: %w", line, err)
		}
		batch = append(batch, rec.exportRecord(scope))
		if len(batch) == batchSize {
			if err := flush(); err != nil {
				return total, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return total, fmt.Errorf("import: line %d is longer than %d bytes", line+1, maxLineBytes)
		}
		return total, fmt.Errorf("import: read: %w", err)
	}
	if line == 0 {
		return total, fmt.Errorf("import: empty input")
	}
	return total, flush()
}

func validate(r Record, maxTextBytes int) error {
	switch {
	case r.ID.String() == "00000000-0000-0000-0000-000000000000":
		return fmt.Errorf("id is missing")
	case strings.TrimSpace(r.Text) == "":
		return fmt.Errorf("text must not be empty")
	case len(r.Text) > maxTextBytes:
		return fmt.Errorf("text is %d bytes; the limit is %d", len(r.Text), maxTextBytes)
	case !utf8.ValidString(r.Text) || strings.ContainsRune(r.Text, 0):
		return fmt.Errorf("text must be valid UTF-8 without NUL")
	case r.Embedding.Embedder == "" || len(r.Embedding.Values) == 0:
		return fmt.Errorf("embedding is missing")
	case len(r.Embedding.Values) != r.Embedding.Dimensions:
		return fmt.Errorf("embedding has %d values, dimensions says %d", len(r.Embedding.Values), r.Embedding.Dimensions)
	case !(r.Importance >= 0 && r.Importance <= 1) || !(r.Confidence >= 0 && r.Confidence <= 1):
		return fmt.Errorf("importance and confidence must be in 0..1")
	}
	if _, err := store.ParseKind(string(r.Kind)); err != nil {
		return err
	}
	return nil
}
