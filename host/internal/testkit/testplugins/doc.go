// Package testplugins builds the repository's real plugin binaries for tests, once per test
// process, so tests talk to plugins as separate processes over go-plugin exactly as the host
// does in production.
package testplugins
