// Package textcut bounds the text the SDK quotes from an implementation or a runtime (an error
// page, an invalid answer, an Info) so that a failure line stays one short line: the one copy
// of cutting on a rune boundary.
package textcut
