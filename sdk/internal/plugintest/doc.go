// Package plugintest owns the one test harness every kind's conformance kit builds on
// (embeddertest, providertest, workertest): serving an implementation over an in-process gRPC
// connection, launching a plugin binary the way memhost does, attaching to a plugin served in
// debug mode, and running a kit's checks as parallel subtests (Check, RunChecks). It is
// generic over the kind's public interface, so a new kind adds a few lines of wrappers, not a
// copy of the go-plugin plumbing.
package plugintest
