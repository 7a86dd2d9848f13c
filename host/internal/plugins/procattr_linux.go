//go:build linux

package plugins

import (
	"os/exec"
	"syscall"
)

// configureCmd asks the kernel to SIGKILL the plugin when its parent dies, so
// a host killed with SIGKILL (which runs no Go code, so Shutdown and KillAll
// never happen) still takes its plugins down.
//
// Pdeathsig fires when the OS thread that forked the child exits, not the
// process. The Go runtime only retires a thread when a goroutine locked to
// it with runtime.LockOSThread exits, so the Supervisor always launches plugins
// from goroutines it creates itself and never locks them.
func configureCmd(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
