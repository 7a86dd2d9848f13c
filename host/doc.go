// Package host is the memhost daemon's module root. It holds no code of its own: it names the
// wings the module is built from and, in imports_test.go, the rules that keep them apart
// (docs/design.md draws the map and says where a new feature's code goes).
//
//	internal/core     the memory itself: text rules, the store (interface, PostgreSQL, the
//	                  conformance kit), the write and read paths, ranking, lexical index,
//	                  short ids, redaction, project keys
//	internal/brain    the project brain over core: goal, plan, journal, proposals, conflicts,
//	                  the banner, the project map, export and import
//	internal/jobs     work off the request path: the maintenance jobs (River) and the task
//	                  runner that asks worker plugins
//	internal/plugins  the host side of the plugin kinds: discovery, supervision, adapters
//	internal/api      the front door and its surfaces: access, tokens, MCP, REST
//	internal/daemon   the composition root: the server that wires everything, lifecycle,
//	                  migrations
//	internal/client   what runs beside a CLI: the host client, memhost run and its hooks,
//	                  connect, transcripts
//	internal/wire     the REST/MCP contract both the api and the client import
//	internal/config   the configuration and its checks
//	internal/testkit  test helpers (never imported by production code)
//	bench             make bench (never imported by production code)
//	cmd               the memhost and memhost-bench binaries
//
// Imports run one way: core imports only core; brain imports core; jobs and api import core and
// brain but not each other; client imports core, config, plugins and wire only; daemon wires it
// all; nothing but tests imports testkit or bench.
package host
