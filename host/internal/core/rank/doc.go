// Package rank owns memhost's one scoring function. Search, cross-layer project search and
// spawn injection all order memories with Score, so a memory ranks the same way everywhere
// (opendray's two formulas ranked one fact two ways). The formula is documented in
// docs/ranking.md and in Score's comment; change it here and nowhere else. Search also
// orders its top results with DemoteSuperseded, so a statement a newer one replaces ("we
// moved from npm to pnpm") ranks below it: the one pairwise rule beside the per-memory score.
package rank
