// Package calibration owns fold-threshold calibration for any embedder:
// labelled pairs of project-memory facts (paraphrases that should fold and
// distinct facts that merely share words), and the false-fold and
// missed-fold rates an embedder reaches on them at a given cosine threshold.
//
// It lives in the SDK, not in a plugin, because it only needs the
// embedder.Embedder interface: plugin authors use it to justify their
// SuggestedFoldThreshold, and the host's `make bench` runs it against a real
// plugin process without importing any plugin module.
//
// Pairs are JSON Lines: {"a": stored text, "b": incoming text, "same": bool, "kind": optional
// family name}. A host that adds its own checks to the threshold measures them with RatesOf,
// and RatesByKind breaks any decision down by Pair.Kind (memhost's bench does both on its fold
// set of several thousand near-miss pairs, host/bench/testdata/foldpairs.jsonl).
//
//	pairs, err := calibration.ReadPairsFile("testdata/pairs.jsonl")
//	rates, err := calibration.Calibrate(ctx, e, pairs, info.SuggestedFoldThreshold)
//	scored, err := calibration.Score(ctx, e, pairs) // per-pair cosines, for sweeps
//	rates, err = calibration.RatesAt(scored, 0.7)
//	rates, err = calibration.RatesOf(scored, func(s calibration.Scored) bool { return s.Cosine >= 0.7 && myCheck(s.A, s.B) })
package calibration
