// Package maintenance runs memhost's self-maintenance jobs on River
// (github.com/riverqueue/river): periodic jobs on the one host River's leader election picks
// among those sharing the database, event jobs enqueued in the transaction of the write that
// causes them, and any job by hand (`memhost maintenance run`).
//
// A job implements [Job]: it is idempotent, bounded by its [Budget], resumable (a run that hits
// its budget leaves the rest to the next run) and holds no lock a memory write waits on for
// longer than one row's change. Every run is recorded in maintenance_runs (what
// `memhost maintenance status` shows); a periodic run first claims its window there, so a
// window runs once even when leadership moves between hosts, and renews a lease while it runs
// (lease.go), so a run whose host died is marked abandoned and its window claimed again. The
// LLM jobs hold every text a worker writes to the write rules (memory.Service.ModelText) and
// never store a model's rewording of a fact (memory.MergeText). Time comes from a [Clock], so
// tests travel in time instead of sleeping. A job touches only the project a run names unless
// it is host-wide (scope.go), which decides who may run it by hand; a run by hand names who
// asked in the history it writes (wire.RunOptions.Actor). See docs/maintenance.md.
package maintenance
