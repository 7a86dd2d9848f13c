// Package pluginkind is the go-plugin glue of every plugin kind, written once and
// generic over the kind's public interface. A kind package (sdk/embedder,
// sdk/provider, sdk/worker) declares its Kind with New from the two halves
// of its one conversion to and from proto: a function that serves an
// implementation as the kind's gRPC service, and one that implements the
// public interface over a client connection. From that Kind come the host's
// go-plugin value (GoPlugin, which makes it a plugin.Kind), the plugin
// process's (Server), serving (Serve) and the test harness (package
// plugintest). Served is what a kind's server holds (the implementation, its
// logger and Described, the first valid Describe it keeps to hold every later
// call to the declared limits); Kept is the last valid Describe a kind's
// client keeps for the same purpose on the host's side.
//
// This is the shape of go-plugin's examples/grpc (a plugin value per kind
// whose GRPCServer and GRPCClient wrap the generated code) and of grafana's
// plugin SDK (public types converted with FromProto and ToProto at the
// boundary), without a registry: the host names the kinds it runs.
package pluginkind
