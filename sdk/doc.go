// Package sdk is the memhost plugin SDK. memhost runs plugins as separate
// processes that speak gRPC through hashicorp/go-plugin; this module is
// everything needed to write, test and host them.
//
// # Depending on it
//
// The module path is github.com/memhost/memhost/sdk (a module of its own
// inside the memhost repository; it needs Go 1.26). Released versions are
// tagged sdk/vX.Y.Z, so a plugin's module takes it with
//
//	go get github.com/memhost/memhost/sdk@latest
//
// Until a release is tagged, point the requirement at a checkout of the
// repository with a replace directive in the plugin's go.mod:
//
//	require github.com/memhost/memhost/sdk v0.0.0
//	replace github.com/memhost/memhost/sdk => ../memhost/sdk
//
// # Versioning promise
//
// Two things are versioned separately. The wire protocol (the memhost.v1
// proto package, go-plugin protocol version 1) only grows compatibly: fields
// and RPCs are added, never renumbered, retyped or removed (buf breaking
// guards it), so a plugin binary built against any SDK release keeps working
// with every host that speaks version 1; a change that cannot be compatible
// becomes memhost.v2 with protocol version 2, and hosts keep accepting the
// older version through plugin.VersionedPlugins while they support it. The
// Go API follows semantic versioning: while the module is v0, a minor release
// may change it (the release notes say how to adapt); from v1 on, only a new
// major version (sdk/v2) breaks it. Packages under internal/ are not API.
//
// # Packages
//
// A plugin kind costs one public package and one conversion to and from
// proto; a plugin's main imports neither go-plugin nor generated code:
//
//   - each kind's package holds its public types and ctx-first interface,
//     its errors, Serve with its options, its Kind (what a host names in
//     plugin.VersionedPlugins) and, unexported, its conversion to and from
//     the generated messages (a server adapter that serves an implementation
//     and a client adapter the host holds, each validating what crosses the
//     wire): embedder (the Embedder interface, Info, Purpose); provider (the
//     Provider interface `memhost run` drives, Spawn, Plan, Ended, Session,
//     Mirror); worker (the Worker interface, Info, Task, Answer);
//   - the go-plugin glue, written once and generic over a kind's interface,
//     internal: internal/pluginkind (the go-plugin values of both sides),
//     internal/pluginserve (serving, debug mode), internal/plugintest (the
//     harness every test kit wraps) and internal/rpcerr (error mapping);
//   - generated protobuf code, internal: internal/gen.
//
// There is no registry: a host lists the kinds it runs, e.g.
// plugin.VersionedPlugins(embedder.Kind, worker.Kind), and a plugin binary
// serves exactly one kind.
//
// Beside them:
//
//   - embedder/embeddertest: an in-process gRPC harness (Serve), a launcher
//     for built binaries in any language (Launch, Start), Attach for a plugin
//     in debug mode, and the conformance kit (Exercise).
//   - provider/providertest: the same harness for providers (Serve, Launch,
//     Start, Attach) and their conformance kit (Exercise).
//   - worker/workertest: the same harness for workers and their conformance
//     kit (Exercise).
//   - embedder/calibration: measures an embedder's false- and missed-fold
//     rates on labelled pairs, to choose its fold threshold.
//   - tokenize: memhost's text analysis, shared by the BM25 embedder and the
//     host's lexical index.
//   - plugin: what every kind shares: the handshake, protocol version, kind
//     names, the Kind interface and the plugin sets the host configures
//     go-plugin with, the errors of every kind's client, the plugin logger
//     and ReattachConfig.
//
// Complete embedder plugins are in examples/embed-hash (Go) and
// examples/embed-node (JavaScript, for plugins in other languages); a
// complete worker plugin is in examples/worker-echo. Plugin
// code never writes to stdout: go-plugin's handshake travels there.
//
// The wire protocol is defined in proto/memhost/v1/embedder.proto,
// proto/memhost/v1/provider.proto and proto/memhost/v1/worker.proto. The
// generated Go code under internal/gen is committed; after editing the
// proto, regenerate it with the buf and protoc plugins pinned in ../tools:
//
//	cd sdk && go generate .
//
// which runs the directive below.
package sdk

//go:generate env GOWORK=off go tool -modfile=../tools/go.mod buf generate
//go:generate env GOWORK=off go tool -modfile=../tools/go.mod buf lint
