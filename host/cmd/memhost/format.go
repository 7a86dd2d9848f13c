package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/shortid"
)

// printable is the one escape of what memhost prints to a terminal (rules.Printable): text
// that agents, models and other clients wrote (proposals, goals, plans, the map, names, keys,
// reasons, evidence) is shown with what a terminal would obey or hide escaped.
func printable(s string) string { return rules.Printable(s) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// shortNames names each item of a listing by its short id (unique within the listing), or by
// its whole id with --full.
func shortNames[T any](full bool, items []T, id func(T) uuid.UUID) map[uuid.UUID]string {
	ids := make([]uuid.UUID, len(items))
	for i, it := range items {
		ids[i] = id(it)
	}
	if !full {
		return shortid.Shorten(ids)
	}
	names := make(map[uuid.UUID]string, len(ids))
	for _, x := range ids {
		names[x] = x.String()
	}
	return names
}

// count is n with the noun's singular or plural: "1 entry", "2 entries", "0 entries".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// listedStatus is the status filter of an empty inbox listing as a word before its noun
// ("open "), nothing for "all", which is no filter.
func listedStatus(status, byDefault string) string {
	if status = orDefault(status, byDefault); status == "all" {
		return ""
	}
	return printable(status) + " "
}

// printIDTable lists items as a table led by an ID column (short ids unless full) under
// header's further columns, row giving the i-th item's cells; empty is the line it prints
// instead when there are none.
func printIDTable[T any](out io.Writer, items []T, full bool, id func(T) uuid.UUID, empty, header string, row func(i int, it T) string) {
	if len(items) == 0 {
		fmt.Fprintln(out, empty)
		return
	}
	names := shortNames(full, items, id)
	w := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\t"+header)
	for i, it := range items {
		fmt.Fprintf(w, "%s\t%s\n", names[id(it)], row(i, it))
	}
	_ = w.Flush()
}
