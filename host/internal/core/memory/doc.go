// Package memory owns memhost's two paths through the store: the write path (validate, redact,
// embed, fold or insert — no LLM, ever) and the read path (hybrid BM25 + vector retrieval, then
// the one ranker over a candidate pool larger than top_k). MCP and REST both call Service, so
// validation, access rules and ranking are written once: the input rules in validate.go, the
// fold policy in fold.go (the store only offers the scope lock and its primitives; a write's
// fold candidates come from the lexical index), in statement*.go when two similar texts are one
// statement, in keeps.go when consolidation may merge several memories and which of their own
// texts the one keeps (the merge guard), in modeltext.go how a text a model wrote is held to
// the same input rules, and in candidates.go which of a search's candidate rows are worth
// reading and whether its nearest-neighbour lookup can change the result at all; hybrid.go
// holds each embedder's part in relevance (its weight and floor); vectors.go lets a slow
// embedder's vector follow its write (FollowVectors) instead of holding the write up. Beside the two paths: an
// operator's correction of one memory (edit.go), and what a memory absorbed, which Get shows
// (absorbed.go: the paraphrases folded in, apart from the memories consolidation merged).
//
// Access is decided here too: a caller works in one project (resolved by the surface from its
// token or arguments); memories of another project are invisible ("not found"), global
// memories are readable by all and writable only with admin.
package memory
