package brain

import (
	"slices"
	"strings"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
)

// The rules every listing of the brain applies to its parameters, worded once.

// pageLimit is a listing's page size: n, or def when n is 0. Out of 1..max it is refused,
// naming field.
func pageLimit(field string, n, def, max int) (int, error) {
	if n == 0 {
		return def, nil
	}
	if n < 1 || n > max {
		return 0, rules.Errf(field, "%d is out of range 1..%d", n, max)
	}
	return n, nil
}

// listLimit is the preamble of a listing of a's project: the access must name a project, and
// the page size is pageLimit's ("limit").
func listLimit(a memory.Access, n, def, max int) (int, error) {
	if err := check(a); err != nil {
		return 0, err
	}
	return pageLimit("limit", n, def, max)
}

// statusFilter is the statuses a listing's status parameter asks for: def when it is empty,
// every status (nil) for "all", else the one it names, which must be one of valid.
func statusFilter[S ~string](raw string, def S, valid ...S) ([]S, error) {
	st := S(raw)
	switch {
	case raw == "":
		return []S{def}, nil
	case raw == "all":
		return nil, nil
	case slices.Contains(valid, st):
		return []S{st}, nil
	}
	names := make([]string, len(valid), len(valid)+1)
	for i, v := range valid {
		names[i] = string(v)
	}
	return nil, rules.Errf("status", "%q is not one of %s", raw, strings.Join(append(names, "all"), ", "))
}

// listPage turns what the store listed into a page's views.
func listPage[T, V any](rows []T, view func(T) V) []V {
	out := make([]V, 0, len(rows))
	for _, r := range rows {
		out = append(out, view(r))
	}
	return out
}
