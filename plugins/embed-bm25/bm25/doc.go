// Package bm25 owns the BM25 embedder: a deterministic, network-free
// embedder that turns the BM25 weighting of a text's terms into a
// fixed-length vector by signed feature hashing, so that cosine similarity
// between two vectors approximates the overlap of their weighted terms.
//
// Algorithm (README.md has the full rationale and calibration):
//
//  1. Terms come from tokenize.Terms, the analysis the host's lexical index
//     also uses (identifier and path splitting, stopwords, English stemming).
//  2. Each distinct term t with frequency tf in a text of n terms gets the
//     BM25 term-frequency saturation tf*(k1+1) / (tf + k1*(1-b+b*n/avgLen))
//     with k1=1.2, b=0.75 and a fixed reference avgLen (a stateless plugin
//     has no corpus to average over).
//  3. That is multiplied by a static term weight, a corpus-free stand-in for
//     IDF: words that are frequent in English and in programming notes
//     ("use", "file", "run", ...) get a reduced weight, everything else 1.
//  4. The weighted term is hashed with 64-bit FNV-1a into one of Dimensions
//     buckets; another bit of the hash picks the sign, so colliding terms
//     cancel on average instead of adding up.
//  5. The vector is L2-normalised; a text without terms yields the zero
//     vector.
//
// Purpose is ignored: BM25 scoring is symmetric between query and document.
package bm25
