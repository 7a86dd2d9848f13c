package maintenance

// Which jobs a token bound to a project may run by hand. A job that declares projectScoped
// touches nothing but the project Run.Project names (every project's when it names none), so a
// bound token may run it on its own project. Any other job acts on the host as a whole whatever
// project it is given, and only an operator (an admin token bound to no project) may run it:
// re-embedding shares one embedder's backoff, rate limit and lock among every project. A job
// is host-wide until it says otherwise, so a new job cannot be run across projects by mistake.
type projectScoped interface{ projectScoped() }

func (Stale) projectScoped()       {}
func (Purge) projectScoped()       {}
func (Journal) projectScoped()     {}
func (Dormancy) projectScoped()    {}
func (Consolidate) projectScoped() {}
func (Conflicts) projectScoped()   {}
func (Summarize) projectScoped()   {}

// HostWide reports whether job acts on the host as a whole (see projectScoped); false for a
// job that is not configured (RunNow answers ErrUnknownJob).
func (m *Maintenance) HostWide(job string) bool {
	s, ok := m.jobs[job]
	if !ok {
		return false
	}
	_, scoped := s.Job.(projectScoped)
	return !scoped
}
