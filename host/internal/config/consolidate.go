package config

import (
	"fmt"
	"time"
)

// MaintenanceConsolidate merges a project's near-duplicate facts (docs/maintenance.md,
// "Consolidation"): a deterministic pre-pass first, the merge worker chain only for the
// ambiguous clusters.
type MaintenanceConsolidate struct {
	MaintenanceJob `koanf:",squash,flatten"`
	MaintenanceLLM `koanf:",squash,flatten"`
	// Same is the cosine at or above which two facts with the same specifics merge without a
	// model; Near the cosine at or above which facts form a cluster the merge chain is asked
	// about. Near <= Same.
	Same       float64 `koanf:"same"`
	Near       float64 `koanf:"near"`
	MaxCluster int     `koanf:"max_cluster"`
}

// MaintenanceConflicts asks the conflicts worker chain which of a project's statements
// contradict or supersede each other (docs/maintenance.md, "Supersession and conflicts").
type MaintenanceConflicts struct {
	MaintenanceJob `koanf:",squash,flatten"`
	MaintenanceLLM `koanf:",squash,flatten"`
	// Facts and Journal bound the task's input: the project's top facts and latest entries.
	Facts   int `koanf:"facts"`
	Journal int `koanf:"journal"`
}

func defaultConsolidate() MaintenanceConsolidate {
	return MaintenanceConsolidate{MaintenanceJob: daily(true), MaintenanceLLM: MaintenanceLLM{MaxLLMCalls: 50, MaxTokens: 200000},
		Same: 0.95, Near: 0.85, MaxCluster: 8}
}

func defaultConflicts() MaintenanceConflicts {
	return MaintenanceConflicts{MaintenanceJob: MaintenanceJob{Enabled: true, Every: day, MaxRows: 100, MaxDuration: 10 * time.Minute},
		MaintenanceLLM: MaintenanceLLM{MaxLLMCalls: 20, MaxTokens: 200000}, Facts: 50, Journal: 10}
}

func (c MaintenanceConsolidate) validate(v *validator) {
	c.MaintenanceJob.validate(v, "maintenance.consolidate", 2, 100000)
	c.MaintenanceLLM.validate(v, "maintenance.consolidate")
	v.floatRange("maintenance.consolidate.same", c.Same, 0.5, 1)
	v.floatRange("maintenance.consolidate.near", c.Near, 0.5, 1)
	// Near is at most same; a same out of its own range is reported above, not here again.
	if c.Near >= 0.5 && c.Near <= 1 && c.Same >= 0.5 && c.Near > c.Same {
		v.add("maintenance.consolidate.near", fmt.Sprintf("%g is above maintenance.consolidate.same (%g)", c.Near, c.Same))
	}
	v.intRange("maintenance.consolidate.max_cluster", c.MaxCluster, 2, 50)
}

func (c MaintenanceConflicts) validate(v *validator) {
	c.MaintenanceJob.validate(v, "maintenance.conflicts", 1, 100000)
	c.MaintenanceLLM.validate(v, "maintenance.conflicts")
	v.intRange("maintenance.conflicts.facts", c.Facts, 2, 500)
	v.intRange("maintenance.conflicts.journal", c.Journal, 0, 100)
}
