//go:build !linux

package spawn

import "os/exec"

// processStart is unknown outside Linux: liveness then rests on the pid alone.
func processStart(int) uint64 { return 0 }

// dieWithParent has no portable equivalent outside Linux.
func dieWithParent(*exec.Cmd) {}
