// Package testplugins builds the repository's real plugin binaries for tests, once per test
// process, so tests talk to plugins as separate processes over go-plugin exactly as the host
// does in production. The builds go to temporary folders named for the test process; each
// new one removes those of processes that have ended (tempdir.go), so repeated runs do not
// fill the disk.
package testplugins
