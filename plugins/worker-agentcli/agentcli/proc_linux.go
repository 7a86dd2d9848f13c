//go:build linux

package agentcli

import "syscall"

// sysProcAttr puts the CLI in a process group of its own, which killGroup
// ends whole, and asks the kernel to SIGKILL it if the plugin dies (a host
// that kills the plugin runs no Go code here). Pdeathsig fires when the
// forking OS thread exits; the plugin never locks goroutines to threads, so
// that is the process's end.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
