// Package sdk is the memhost plugin SDK. memhost runs plugins as separate
// processes that speak gRPC through hashicorp/go-plugin; this module is
// everything needed to write, test and host them.
//
// Packages, from what a plugin author touches most to least:
//
//   - embedder: the Embedder interface, Serve for a plugin's main, and the
//     go-plugin glue the host uses.
//   - embedder/embeddertest: an in-process gRPC harness (Serve), a launcher
//     for built binaries (Launch) and the conformance kit (Exercise).
//   - embedder/calibration: measures an embedder's false- and missed-fold
//     rates on labelled pairs, to choose its fold threshold.
//   - tokenize: memhost's text analysis, shared by the BM25 embedder and the
//     host's lexical index.
//   - plugin: the handshake, protocol version, kind names and the plugin
//     sets the host configures go-plugin with.
//
// A complete embedder plugin is in examples/embed-hash. Its main is one
// line; plugin code never imports go-plugin, gRPC or generated types, and
// never writes to stdout (go-plugin's handshake travels there).
//
// The wire protocol is defined in proto/memhost/v1/embedder.proto. The
// generated Go code under internal/gen is committed; after editing the
// proto, regenerate it with the buf and protoc plugins pinned in ../tools:
//
//	cd sdk && go generate .
//
// which runs the directive below.
package sdk

//go:generate env GOWORK=off go tool -modfile=../tools/go.mod buf generate
//go:generate env GOWORK=off go tool -modfile=../tools/go.mod buf lint
