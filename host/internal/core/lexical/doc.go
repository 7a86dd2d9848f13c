// Package lexical owns memhost's in-process BM25 index: the lexical half of hybrid search.
//
// Postgres ts_rank is not BM25 (no IDF, no saturation) and is slow on common terms, so the
// host keeps an inverted index per scope partition (one per project, one for global) with real
// Okapi BM25: IDF from the partition's own document frequencies, term-frequency saturation k1
// and length normalisation b. Terms come from sdk/tokenize, the same analysis the BM25 embedder
// uses. It also owns query analysis: the read path expands a query with a small hand-kept
// software thesaurus (thesaurus.go) at query time, leaving stored texts and vectors untouched.
//
// Postgres stays the only source of truth. The index is rebuilt from the change feed at boot,
// and Follower tails the feed so that several hosts sharing one database each see the others'
// writes; a host also applies its own writes immediately so it reads what it just wrote. The
// follower hands what it applies to its subscribers (Follower.Subscribe): the operator
// console's live feed follows the same change feed, not a second one.
package lexical
