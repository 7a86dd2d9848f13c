//go:build unix && !linux

package agentcli

import "syscall"

// sysProcAttr puts the CLI in a process group of its own, which killGroup
// ends whole. Only Linux has a parent-death signal.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
