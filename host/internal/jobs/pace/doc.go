// Package pace is the one place background work decides how fast to go beside agents' calls.
// A Pacer reads the host's foreground gauge (when the latest memory call began,
// memory.Service.LastCall): on an idle host background steps run back to back; while agents
// are calling, each step of busy time is followed by a rest of Yield times that long, so the
// calls get the cores. The re-embed job and the ANN indexer consult the same Pacer between
// their batches, and it counts what it decided so status can say when work is yielding.
package pace
