// Package plugins owns the host's side of memhost plugins: finding plugin
// binaries on disk, launching them as child processes over go-plugin's gRPC
// transport, and keeping them alive for the life of the host.
//
// Discover turns plugin directories into Candidates (files named
// memhost-<kind>-<name>, executable, optionally pinned by a sha256 allow-list).
// A Manager launches the candidates, dispenses each kind from the SDK's shared
// handshake and plugin sets, and hands the rest of the host EmbedderHandles:
// values that implement embedder.Embedder, so callers use a plugin exactly like
// an in-process embedder, while the handle adds what calling a separate
// process needs:
//
//   - a per-call deadline (Config.CallTimeout) layered on the caller's context,
//     so a wedged plugin never hangs a request;
//   - restart with capped, jittered exponential backoff when the process dies
//     or the transport breaks; meanwhile calls fail fast with an
//     *UnavailableError that wraps embedder.ErrUnavailable;
//   - an identity check on every restart: a binary replaced by one that reports
//     another Name or Dimensions is marked failed instead of silently changing
//     the vector space of stored memories;
//   - a health loop (Config.HealthInterval), per-plugin Status for operators,
//     and Prometheus metrics (memhost_plugin_*).
//
// Processes never outlive the host: Shutdown kills them and waits, KillAll
// does the same for every Manager in the process (the equivalent of
// go-plugin's CleanupClients for the host's exit paths), and on Linux each
// plugin gets a parent-death signal (SIGKILL) so that even a kill -9 of the
// host leaves no orphans.
package plugins
