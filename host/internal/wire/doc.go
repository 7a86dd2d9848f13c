// Package wire is the contract between the host's surfaces (package api) and the programs that
// call them (package client, the memhost CLI, the bench): the answer types of the REST API that
// are not core's own types, the one JSON error shape, and the MCP extension memhost defines.
// Both sides import it and neither imports the other, so a change to what the host answers is a
// change here that both sides see at compile time.
//
// It imports nothing of memhost's: a type here is plain data with JSON tags.
package wire
