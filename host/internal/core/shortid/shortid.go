package shortid

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Len is the length of a short id in hex digits: 32 random bits, so two of 100,000 records in
// one project share one with a chance of about one in a million.
const Len = 8

// Of is id's short form: its last Len hex digits.
func Of(id uuid.UUID) string {
	return hex.EncodeToString(id[16-Len/2:])
}

// Shorten names each id by its shortest suffix of at least Len digits that no other id in ids
// ends with, so a list shown at once never prints one short id twice. Sorting the ids by
// their digits read backwards puts the ids sharing the longest suffix with each one beside
// it. The banner names every candidate fact this way on each render, so it works on the
// ids' nibbles and allocates only the names.
func Shorten(ids []uuid.UUID) map[uuid.UUID]string {
	type tail struct {
		id  uuid.UUID
		rev [32]byte // the id's hex digits as nibbles, last first
	}
	tails := make([]tail, 0, len(ids))
	seen := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		t := tail{id: id}
		for i := range 16 {
			t.rev[31-2*i] = id[i] >> 4
			t.rev[30-2*i] = id[i] & 0xf
		}
		tails = append(tails, t)
	}
	slices.SortFunc(tails, func(a, b tail) int { return bytes.Compare(a.rev[:], b.rev[:]) })
	out := make(map[uuid.UUID]string, len(tails))
	var digits [32]byte
	for i, t := range tails {
		n := Len
		if i > 0 {
			n = max(n, commonPrefix(t.rev, tails[i-1].rev)+1)
		}
		if i+1 < len(tails) {
			n = max(n, commonPrefix(t.rev, tails[i+1].rev)+1)
		}
		hex.Encode(digits[:], t.id[:])
		out[t.id] = string(digits[32-min(n, 32):])
	}
	return out
}

func commonPrefix(a, b [32]byte) int {
	n := 0
	for n < len(a) && a[n] == b[n] {
		n++
	}
	return n
}

// Ref is what a caller named a record by.
type Ref struct {
	// ID is set when the caller gave a whole UUID.
	ID uuid.UUID
	// Digits are the hex digits of a short id (lower case, no dashes) otherwise.
	Digits string
}

// Whole reports whether the ref is a full UUID.
func (r Ref) Whole() bool { return r.ID != uuid.Nil }

// Parse reads a full UUID or a short id of Len to 31 hex digits (dashes ignored). what names
// the record in the error ("memory", "proposal", "token").
func Parse(what, ref string) (Ref, error) {
	ref = strings.TrimSpace(ref)
	if id, err := uuid.Parse(ref); err == nil && len(ref) >= 32 {
		return Ref{ID: id}, nil
	}
	digits := strings.ToLower(strings.ReplaceAll(ref, "-", ""))
	if len(digits) < Len || len(digits) >= 32 || strings.Trim(digits, "0123456789abcdef") != "" {
		return Ref{}, fmt.Errorf("%q is not a %s id: pass the id as shown (its last %d or more hex digits) or the whole id", clip(ref), what, Len)
	}
	return Ref{Digits: digits}, nil
}

// Suffix reports whether id ends with the ref's digits.
func (r Ref) Suffix(id uuid.UUID) bool {
	if r.Whole() {
		return id == r.ID
	}
	return strings.HasSuffix(hex.EncodeToString(id[:]), r.Digits)
}

// Prefix reports whether id starts with the ref's digits: how ids printed before short ids
// were suffixes still resolve.
func (r Ref) Prefix(id uuid.UUID) bool {
	if r.Whole() {
		return id == r.ID
	}
	return strings.HasPrefix(hex.EncodeToString(id[:]), r.Digits)
}

// Pick resolves the ref among candidates: the one id it names as a suffix, else as a prefix.
// It returns uuid.Nil with n = 0 when none matches and n > 1 when the ref is ambiguous.
func (r Ref) Pick(candidates []uuid.UUID) (id uuid.UUID, n int) {
	for _, match := range []func(uuid.UUID) bool{r.Suffix, r.Prefix} {
		var found []uuid.UUID
		for _, c := range candidates {
			if match(c) && !contains(found, c) {
				found = append(found, c)
			}
		}
		if len(found) == 1 {
			return found[0], 1
		}
		if len(found) > 1 {
			return uuid.Nil, len(found)
		}
	}
	return uuid.Nil, 0
}

func contains(ids []uuid.UUID, id uuid.UUID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// clip keeps a bad ref short in an error message.
func clip(s string) string {
	if len(s) <= 48 {
		return s
	}
	end := 45
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "..."
}
