package worker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/memhost/memhost/sdk/internal/textcut"
)

// MaxNameBytes bounds Info.Name and a task kind, which are metric labels.
const MaxNameBytes = 64

// MaxModelBytes bounds Info.Model and Answer.Model.
const MaxModelBytes = 256

// Validate reports the first way in which i breaks the protocol contract.
// The SDK applies it to what an implementation's Describe returns and to
// every Describe response the host receives.
func (i Info) Validate() error {
	if err := checkName("name", i.Name); err != nil {
		return err
	}
	if len(i.TaskKinds) == 0 {
		return errors.New("task kinds: none listed; a worker serves at least one")
	}
	seen := make(map[TaskKind]bool, len(i.TaskKinds))
	for n, k := range i.TaskKinds {
		if err := checkName(fmt.Sprintf("task kinds[%d]", n), string(k)); err != nil {
			return err
		}
		if seen[k] {
			return fmt.Errorf("task kinds[%d] %q: listed twice", n, k)
		}
		seen[k] = true
	}
	switch {
	case i.Locality != LocalityRemote && i.Locality != LocalityLocal:
		return fmt.Errorf("locality %d: must be remote or local", int(i.Locality))
	case i.MaxInputBytes <= 0:
		return fmt.Errorf("max input bytes %d must be > 0", i.MaxInputBytes)
	}
	return checkModel("model", i.Model)
}

// Validate reports the first way in which t is not a task w, described by
// info, may be given. The client applies it before sending and the server
// before calling the implementation.
func (t Task) Validate(info Info) error {
	switch {
	case !info.Serves(t.Kind):
		return fmt.Errorf("task kind %q: not served by worker %s (it serves %s)", t.Kind, info.Name, kindList(info.TaskKinds))
	case t.TokenBudget <= 0:
		return fmt.Errorf("token budget %d must be > 0", t.TokenBudget)
	case len(t.Instructions)+len(t.Input) > info.MaxInputBytes:
		return fmt.Errorf("instructions and input are %d bytes, exceed max input bytes %d", len(t.Instructions)+len(t.Input), info.MaxInputBytes)
	case !utf8.ValidString(t.Instructions) || !utf8.ValidString(t.Input):
		return errors.New("instructions and input must be valid UTF-8")
	case t.Deadline.IsZero():
		return errors.New("deadline is not set")
	}
	if t.Schema != "" {
		if _, err := compileSchema(t.Schema); err != nil {
			return fmt.Errorf("json schema: %w", err)
		}
	}
	return nil
}

// CheckAnswer holds a, an answer to t, to the protocol and returns it with
// JSON set when t has a Schema: the text must be exactly one JSON value that
// satisfies the schema, and the usage, when reported, must fit the budget.
// Its errors wrap ErrBadAnswer. The SDK applies it on both sides of the
// wire, so an answer that fails never reaches the caller.
func (t Task) CheckAnswer(a Answer) (Answer, error) {
	a.JSON = nil
	if !utf8.ValidString(a.Text) {
		return Answer{}, fmt.Errorf("%w: text is not valid UTF-8", ErrBadAnswer)
	}
	if err := checkModel("answer model", a.Model); err != nil {
		return Answer{}, fmt.Errorf("%w: %w", ErrBadAnswer, err)
	}
	if u := a.Usage; u != nil {
		switch {
		case u.InputTokens < 0 || u.OutputTokens < 0:
			return Answer{}, fmt.Errorf("%w: usage %d+%d tokens: counts must be >= 0", ErrBadAnswer, u.InputTokens, u.OutputTokens)
		case u.Total() > t.TokenBudget:
			return Answer{}, fmt.Errorf("%w: used %d tokens, over the task's budget of %d", ErrBadAnswer, u.Total(), t.TokenBudget)
		}
	}
	if t.Schema == "" {
		return a, nil
	}
	schema, err := compileSchema(t.Schema)
	if err != nil {
		return Answer{}, fmt.Errorf("json schema: %w", err)
	}
	v, err := decodeOne(a.Text)
	if err != nil {
		return Answer{}, fmt.Errorf("%w: not one JSON value: %w", ErrBadAnswer, err)
	}
	if err := schema.Validate(v); err != nil {
		return Answer{}, fmt.Errorf("%w: does not satisfy the task's schema: %s", ErrBadAnswer, oneLine(err.Error()))
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(a.Text)); err != nil {
		return Answer{}, fmt.Errorf("%w: not one JSON value: %w", ErrBadAnswer, err)
	}
	a.JSON = compact.Bytes()
	return a, nil
}

// compileSchema compiles a JSON Schema (draft 2020-12) given inline. It loads
// nothing: a $ref to a file or a URL fails rather than read the disk or the
// network. google/jsonschema-go rather than a fuller validator: it costs
// nothing at process start, and every memhost command links this package (a
// validator that compiles its meta-schemas at init added ~20 ms to each
// `memhost run` and hook).
func compileSchema(s string) (*jsonschema.Resolved, error) {
	if !json.Valid([]byte(s)) {
		return nil, errors.New("not JSON")
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal([]byte(s), &schema); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %s", oneLine(err.Error()))
	}
	resolved, err := schema.Resolve(&jsonschema.ResolveOptions{
		Loader: func(uri *url.URL) (*jsonschema.Schema, error) {
			return nil, fmt.Errorf("%s: a task's schema must be self-contained", uri)
		},
	})
	if err != nil {
		return nil, errors.New(oneLine(err.Error()))
	}
	return resolved, nil
}

// decodeOne decodes s as exactly one JSON value. Numbers decode as float64,
// the only number type the validator knows (a json.Number would pass as a
// string); the answer's JSON keeps the text's exact digits.
func decodeOne(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text follows the JSON value")
	}
	return v, nil
}

func checkName(field, s string) error {
	if s == "" {
		return fmt.Errorf("%s is empty", field)
	}
	if len(s) > MaxNameBytes {
		return fmt.Errorf("%s is %d bytes, exceeds %d", field, len(s), MaxNameBytes)
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '-' || r == '_' || r == '.') && i > 0:
		default:
			return fmt.Errorf("%s %q: must be lower-case letters, digits, '.', '_' and '-', starting with a letter or digit", field, s)
		}
	}
	return nil
}

func checkModel(field, s string) error {
	switch {
	case len(s) > MaxModelBytes:
		return fmt.Errorf("%s is %d bytes, exceeds %d", field, len(s), MaxModelBytes)
	case strings.IndexFunc(s, unicode.IsControl) >= 0 || !utf8.ValidString(s):
		return fmt.Errorf("%s must be one line of valid UTF-8", field)
	}
	return nil
}

func kindList(kinds []TaskKind) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// oneLine flattens a multi-line validation message, bounded so that an
// answer quoted in it cannot flood a log.
func oneLine(s string) string { return textcut.Line(s, 300) }
