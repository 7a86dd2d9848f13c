//go:build !linux

package plugins

import "os/exec"

// configureCmd is a no-op outside Linux: other systems have no parent-death
// signal, so only Shutdown and KillAll stop plugin processes there.
func configureCmd(*exec.Cmd) {}
