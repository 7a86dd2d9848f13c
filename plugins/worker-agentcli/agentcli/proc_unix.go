//go:build unix

package agentcli

import "syscall"

// killGroup sends SIGKILL to every process of the group pgid. SIGKILL
// because a CLI that ignores SIGTERM must not survive its deadline; a group
// already gone is not an error.
func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
