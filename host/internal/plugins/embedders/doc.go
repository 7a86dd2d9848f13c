// Package embedders is the plugin supervisor's adapter for the embedder kind,
// and the host's way to use an embedder plugin: a Handle is an
// embedder.Embedder backed by a supervised plugin process.
//
// A Handle trusts nothing that crosses the wire. Texts longer than the
// plugin's MaxInputBytes are cut on a UTF-8 boundary before they are sent,
// as the protocol promises plugin authors. Every answer is checked: one
// vector per text, each of the promised dimensions, every component finite,
// and none the zero vector for a text with words unless the embedder's
// vectors are hashed terms (the BM25 floor), which have no direction when a
// text has no terms.
// A plugin that answers otherwise is marked unhealthy with the reason (shown
// by `memhost plugins` and the status API) and the call fails with an error
// wrapping embedder.ErrUnavailable, so a NaN never reaches the store or the
// ranker. A permanent rejection of the input by the plugin comes back
// wrapping embedder.ErrInvalidInput instead, which is not worth a retry.
package embedders
