package wire

import (
	"strconv"
	"strings"
	"time"
)

// maxWindowDays bounds a window in days, far past any retention (and any overflow).
const maxWindowDays = 36500

// ParseWindow reads a window as ?since= (GET .../value, .../sessions) and `memhost project value
// --since` take it: a positive Go duration (36h, 90m) or a whole number of days (7d).
func ParseWindow(v string) (time.Duration, bool) {
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > maxWindowDays {
			return 0, false
		}
		return time.Duration(n) * 24 * time.Hour, true
	}
	d, err := time.ParseDuration(v)
	return d, err == nil && d > 0
}
