// Package lifecycle owns how the host runs its background work: one Group starts every
// Service (following the change feed, moving imported rows into the ANN index, recording
// search hits, supervising plugins, and next the maintenance scheduler) and stops them all
// together at shutdown, waiting for each to finish what it holds.
//
// A Service is a function that runs until its context ends. The Group restarts one that
// returns an error or panics, after a capped backoff, so a transient fault (a database blip
// under the change-feed follower) never silently ends a loop the host depends on. A service
// built on a scheduler with its own Start/Stop (River's client) adapts by starting in Run and
// stopping when the context ends.
package lifecycle
