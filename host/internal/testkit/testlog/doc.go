// Package testlog holds what tests use to capture output written from other goroutines: the
// log of a child process, or of a server under test.
package testlog
