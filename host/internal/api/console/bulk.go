package console

import (
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/memory"
)

// Bulk archive: the memories selected on the Memories screen, or every memory a filter
// matches (after a confirmation page that lists them). Archiving is soft and each memory can
// be restored from its page or the project's archive tab until the purge job's grace ends.

// bulkMax bounds one bulk archive: an operator's action, taken as one write of the token's
// rate limit, so it is bounded like one.
const bulkMax = 200

// bulkView is the confirmation page's data: what the filter matches now.
type bulkView struct {
	Query     query
	Memories  []memory.View
	More      bool // the filter matches more than bulkMax
	Searched  bool
	ReturnURL string
}

// bulkArchiveConfirm lists what archiving everything the filter matches would archive.
func (c *Console) bulkArchiveConfirm(cl *call) error {
	acc, q, err := cl.resolveQuery()
	if err != nil {
		return err
	}
	v := bulkView{Query: q, Searched: q.Q != "", ReturnURL: pageURL("memories", q.params()...)}
	if v.Searched {
		res, err := c.Service.Search(cl.r.Context(), acc, q.search())
		if err != nil {
			return err
		}
		for _, h := range res.Hits {
			v.Memories = append(v.Memories, h.View)
		}
	} else {
		page, err := c.Service.List(cl.r.Context(), acc, q.list(bulkMax))
		if err != nil {
			return err
		}
		v.Memories, v.More = page.Memories, page.Next != ""
	}
	// Archived memories are already what the action would make them.
	live := v.Memories[:0]
	for _, m := range v.Memories {
		if m.ArchivedAt == nil {
			live = append(live, m)
		}
	}
	v.Memories = live
	c.render(cl.w, cl.r, cl, 200, "bulk", v)
	return nil
}

// bulkArchive archives the memories the form names (whole ids), with one reason. Each goes
// through the memory service as one archive would; a memory of another project is not found,
// as everywhere.
func (c *Console) bulkArchive(cl *call) error {
	acc, err := cl.resolve()
	if err != nil {
		return err
	}
	ids := cl.r.PostForm["id"]
	switch {
	case len(ids) == 0:
		return errField("id", "select at least one memory to archive")
	case len(ids) > bulkMax:
		return errField("id", "%d memories selected; the limit is %d per archive", len(ids), bulkMax)
	}
	reason := strings.TrimSpace(cl.r.PostFormValue("reason"))
	parsed := make([]uuid.UUID, len(ids))
	for i, s := range ids {
		id, err := uuid.Parse(s)
		if err != nil {
			return errField("id", "%q is not a memory id", clip(40, s))
		}
		parsed[i] = id
	}
	done := 0
	for _, id := range parsed {
		if _, err := c.Service.Archive(cl.r.Context(), acc, id, reason); err != nil {
			if done == 0 {
				return err
			}
			return cl.redirect(cl.back(pageURL("memories", "project", acc.Project)), fmt.Sprintf("Archived %d of %d memories; then: %s", done, len(parsed), problemText(err)))
		}
		done++
	}
	return cl.redirect(cl.back(pageURL("memories", "project", acc.Project)), fmt.Sprintf("Archived %d memories. Restore any of them from its page or the project's Archived tab.", done))
}
