// Package openaifake is a stand-in OpenAI-compatible embeddings runtime for
// tests and benchmarks, in the SDK so that embedder plugins and the host can
// both use it: a real HTTP server on loopback speaking the wire format of
// POST /v1/embeddings and GET /v1/models (input as a string or a list,
// encoding_format float or base64, dimensions, usage, error bodies
// {"error": {"message", "type", "param", "code"}}, Retry-After) with a small
// deterministic semantic model (see Vector), so that "package manager" is
// near "pnpm", "specs" near "tests" and "mocks" near "fakes".
//
// It misbehaves the way real runtimes do, each on request: vectors cut to
// 256 values (what some SDK and runtime pairs do to base64 answers),
// over-long input refused or silently cut, rate limits with Retry-After,
// 503s and refused connections (SetOutage), all toggled while it runs.
//
//	srv := openaifake.Start(t, openaifake.Options{Dimensions: 1024})
//	cfg.BaseURL = srv.URL() // http://127.0.0.1:port/v1
//	srv.SetOutage(openaifake.Refused) // later: srv.SetOutage(openaifake.Up)
//
// Its quality is not a real model's: retrieval numbers measured with it show
// that the dense path works, not how well a real model ranks.
package openaifake
