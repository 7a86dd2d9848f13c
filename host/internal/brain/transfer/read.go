package transfer

import (
	"bufio"
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
)

// maxLineBytes bounds one JSONL line (a memory, its vector and its full history).
const maxLineBytes = 16 << 20

// readRecords reads an export: the header, then one record per line, each decoded strictly and
// handed to fn with its line number. Only one line is held at a time. every, when set, hears
// the count of records read after each batchSize of them. An error names the line.
func readRecords(ctx context.Context, r io.Reader, fn func(line int, rec *Record) error, every func(done int)) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), maxLineBytes)
	line, n, header := 0, 0, false
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		if !header {
			if err := checkHeader(raw); err != nil {
				return n, fmt.Errorf("import: line %d: %w", line, err)
			}
			header = true
			continue
		}
		var rec Record
		if err := decodeStrict(raw, &rec); err != nil {
			return n, fmt.Errorf("import: line %d: %w", line, err)
		}
		if err := fn(line, &rec); err != nil {
			if ctx.Err() != nil {
				return n, fmt.Errorf("import: %w", ctx.Err())
			}
			return n, fmt.Errorf("import: line %d: %w", line, err)
		}
		n++
		if n%batchSize == 0 {
			if err := ctx.Err(); err != nil {
				return n, fmt.Errorf("import: %w", err)
			}
			if every != nil {
				every(n)
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return n, fmt.Errorf("import: line %d is longer than %d bytes", line+1, maxLineBytes)
		}
		return n, fmt.Errorf("import: read: %w", err)
	}
	if !header {
		return n, errors.New("import: the input is empty; an export starts with a header line")
	}
	return n, nil
}

func checkHeader(raw []byte) error {
	var h Header
	if err := json.Unmarshal(raw, &h); err != nil || h.Format <= 0 {
		return errors.New("not a memhost export header")
	}
	if h.Format > FormatVersion {
		return fmt.Errorf("export format %d is newer than this memhost reads (%d)", h.Format, FormatVersion)
	}
	return nil
}

// decodeStrict decodes one record, refusing unknown fields and anything after the object.
func decodeStrict(raw []byte, rec *Record) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(rec); err != nil {
		return errors.New(describeDecode(err))
	}
	if dec.More() {
		return errors.New("unexpected data after the record")
	}
	return nil
}

// describeDecode says what is wrong with a line in the format's own terms: encoding/json's
// messages name Go types, which mean nothing to whoever wrote the file.
func describeDecode(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	var timeErr *time.ParseError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "record"
		}
		want := jsonKind(typeErr.Type)
		if strings.HasPrefix(typeErr.Value, "number") && want == "a number" {
			return fmt.Sprintf("%s: %s is out of range", field, typeErr.Value)
		}
		return fmt.Sprintf("%s: expected %s, got %s", field, want, typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("not valid JSON (at byte %d: %s)", syntaxErr.Offset, syntaxErr.Error())
	case errors.As(err, &timeErr):
		return fmt.Sprintf("%q is not an RFC 3339 timestamp", timeErr.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the record is cut short"
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.Contains(msg, "UnmarshalJSON") {
		return "a timestamp must be an RFC 3339 string"
	}
	return msg
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) || t == reflect.TypeFor[time.Time]() {
		return "a string"
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "another type"
}
