// Package shortid owns the short names memhost shows people and agents for the records they
// act on (memories, proposals, journal entries, tokens), and how such a name is read back.
//
// Ids are UUIDv7: their leading hex digits are a millisecond clock, so everything written
// within about a minute shares its first 8 digits, and a prefix names nothing. The trailing
// digits are random (62 bits), so a short id is a suffix: the last 8 hex digits, lengthened
// only where two records shown together share them. Reading one back accepts the full UUID,
// a suffix of 8 or more hex digits, and (for ids printed by older releases) a prefix of 8 or
// more; the resolver says so when a short id matches more than one record.
package shortid
