//go:build linux

package spawn

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// processStart is when process pid started, in clock ticks since boot (field 22 of
// /proc/<pid>/stat), or 0 when unknown.
func processStart(pid int) uint64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces: count from after it.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(s[i+1:])
	const startField = 22 - 3 // fields after ')' start at field 3
	if len(fields) <= startField {
		return 0
	}
	start, _ := strconv.ParseUint(fields[startField], 10, 64)
	return start
}

// dieWithParent asks the kernel to send the CLI SIGTERM when memhost run dies, so that a
// memhost run killed with SIGKILL (which runs no Go code) leaves no CLI running on a scratch
// directory the next run will sweep. The signal is tied to the forking thread; Go retires
// threads only for goroutines locked to them, which this package never does.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
