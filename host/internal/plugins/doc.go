// Package plugins owns the host's side of memhost plugin processes, for
// every kind: finding plugin binaries on disk, launching them over
// go-plugin's gRPC transport, and keeping them alive for the life of the
// host. It knows processes, not kinds; what is particular to a kind (who a
// plugin says it is, how to ask it whether it is healthy, what its errors
// mean) comes from one small Adapter per kind, beside this package
// (plugins/embedders for embedders). What every kind does alike is written
// once here, generic over the kind's SDK interface: KindAdapter (the
// dispense type check, Identify from a validated Describe, Health, the SDK's
// shared errors read as outcomes) needs only a zero-size Kind saying what
// sets the kind apart, and Handle (Find, List, Info, Status, Describe,
// Health, a typed Call) is what a kind's own handle embeds to add its calls.
//
// Discover turns plugin directories into Candidates (files named
// memhost-<kind>-<name>, executable, optionally pinned by a sha256
// allow-list). A Supervisor launches them with the SDK's shared handshake,
// AutoMTLS, an allow-listed environment and the checksum re-checked, and
// hands kind adapters a Plugin per binary whose Call adds what calling a
// separate process needs:
//
//   - a per-call deadline (Config.CallTimeout) layered on the caller's
//     context, so a wedged plugin never hangs a request;
//   - restart with capped, jittered exponential backoff when the process
//     dies or the transport breaks; meanwhile calls fail fast with an
//     *UnavailableError;
//   - errors a caller may see are short and generic ("embedder plugin bm25
//     is restarting"), while the diagnosis goes to the host log and to
//     Status.LastError; a call the plugin failed, or answered in breach of
//     its protocol, marks it unhealthy with the reason;
//   - an identity check on every restart: a binary replaced by one that
//     reports another name or shape is marked failed instead of silently
//     changing, say, the vector space of stored memories;
//   - a health loop (Run, under the host's background lifecycle), a Status
//     per plugin for operators, and Prometheus metrics (memhost_plugin_*);
//   - every line a plugin writes to stderr reaches the host log, whatever
//     its format, and a dead process's last words join its Status.
//
// Processes never outlive the host: Shutdown kills them and waits, KillAll
// does the same for every Supervisor in the process (the equivalent of
// go-plugin's CleanupClients for the host's exit paths), and on Linux each
// plugin gets a parent-death signal (SIGKILL) so that even a kill -9 of the
// host leaves no orphans.
package plugins
