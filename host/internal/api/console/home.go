package console

import (
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/store"
)

// homeView is the console's home: the projects the token may open.
type homeView struct {
	// Projects is the listing for an admin token, most recently active first; a token bound
	// to a project goes straight to it, and any other token names the project it opens.
	Projects []store.ProjectSummary
	Listed   bool
}

// homeProjects is how many projects the home page lists.
const homeProjects = 200

func (c *Console) home(cl *call) error {
	if key := cl.p.ProjectKey; key != "" {
		return cl.redirect(pageURL("memories", "project", key), "")
	}
	if key := cl.r.FormValue("project"); key != "" {
		acc, err := cl.resolve()
		if err != nil {
			return err
		}
		return cl.redirect(pageURL("memories", "project", acc.Project), "")
	}
	v := homeView{}
	if cl.p.Has(auth.ScopeAdmin) && c.Projects != nil {
		ps, err := c.Projects.Projects(cl.r.Context(), store.ProjectsQuery{Limit: homeProjects})
		if err != nil {
			return err
		}
		v.Projects, v.Listed = ps, true
	}
	c.render(cl.w, cl.r, cl, 200, "home", v)
	return nil
}
