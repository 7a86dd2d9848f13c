package server

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Commit and BuildDate are stamped by scripts/build.sh (make build, make dist) with -ldflags
// -X next to Version; a plain `go build` leaves them empty and BuildInfo falls back to what
// the Go toolchain recorded about the checkout, if anything.
var (
	Commit    = ""
	BuildDate = ""
)

// BuildInfo is the one-line answer to `memhost --version`: version, commit, build date and the
// toolchain and platform the binary was built for.
func BuildInfo() string {
	commit, date := Commit, BuildDate
	if bi, ok := debug.ReadBuildInfo(); ok && (commit == "" || date == "") {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && commit == "":
				commit = s.Value
			case s.Key == "vcs.time" && date == "":
				date = s.Value
			}
		}
	}
	return fmt.Sprintf("%s (commit %s, built %s, %s %s/%s)", Version, orUnknown(commit), orUnknown(date),
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
