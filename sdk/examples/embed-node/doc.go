// Package embednode holds the tests of the example embedder plugin written in
// JavaScript in this directory (index.js): they install its npm dependencies
// into a temporary folder, launch it the way the host does (go-plugin
// handshake, AutoMTLS, gRPC) and run the embedder conformance kit against it.
// The plugin itself is not Go; see README.md.
package embednode
