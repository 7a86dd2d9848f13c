package tasks

import (
	"fmt"
	"strings"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/workers"
	"github.com/memhost/memhost/sdk/worker"
)

// Unserved says why no worker of kind's chain can take its tasks at all ("" when one can): the
// chain is empty, or each of its workers is missing, stopped for good or serves other kinds. A
// worker that is only unhealthy or backed off for now still counts: it comes back. Surfaces use
// it to say a job is off rather than show its empty inbox as good news.
func (r *Runner) Unserved(kind worker.TaskKind) string {
	chain := r.Chain(kind)
	if len(chain) == 0 {
		return fmt.Sprintf("no worker for `%s`", kind)
	}
	why := make([]string, 0, len(chain))
	for _, name := range chain {
		if reason, ok := r.missing[name]; ok {
			why = append(why, name+": "+reason)
			continue
		}
		h, err := workers.Find(r.sup, name)
		switch {
		case err != nil:
			why = append(why, name+": not running")
		case !h.Info().Serves(kind):
			why = append(why, name+": does not serve "+string(kind))
		case h.Status().State == plugins.StateFailed:
			why = append(why, name+": failed (see memhost workers)")
		default:
			return ""
		}
	}
	return fmt.Sprintf("no worker for `%s` (%s)", kind, strings.Join(why, "; "))
}
