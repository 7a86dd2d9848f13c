package projectmap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"
)

// MaxClockSkew is how far ahead of the reader's clock a map's generated_at may be. The
// machine that built the map may run a little fast; a map from further ahead would never
// look stale, so it would never be rebuilt, and a host refuses it (CheckClock).
const MaxClockSkew = 5 * time.Minute

// CheckClock refuses a map generated more than MaxClockSkew after now, the reader's clock.
// The error is a *rules.FieldError. Only generated_at is held to the clock: it alone decides
// staleness. Commit times are whatever their committers' clocks said (git records them as
// given), the summary shows them as dates, and they decide nothing.
func (m Map) CheckClock(now time.Time) error {
	if m.GeneratedAt.Sub(now) > MaxClockSkew {
		return rules.Errf("generated_at", "%s is more than %s ahead of this host's clock (the clock-skew allowance)",
			m.GeneratedAt.UTC().Format(time.RFC3339), fmtDuration(MaxClockSkew))
	}
	return nil
}

// Stale reports whether a map generated at generatedAt is out of date at now: older than
// maxAge, or further ahead of now than MaxClockSkew (a clock that was wrong when it was
// built, or a map stored before hosts refused such times), which only a rebuild corrects.
func Stale(generatedAt, now time.Time, maxAge time.Duration) bool {
	return now.Sub(generatedAt) > maxAge || generatedAt.Sub(now) > MaxClockSkew
}

func fmtDuration(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}

// mapTimes is the map's timestamps as raw JSON. time.Time's own decoding error names no
// field ("parsing time ..."), so Decode reads them here first to say which one is wrong.
type mapTimes struct {
	GeneratedAt json.RawMessage `json:"generated_at"`
	Git         *struct {
		Head *struct {
			Time json.RawMessage `json:"time"`
		} `json:"head"`
		Recent struct {
			Since  json.RawMessage `json:"since"`
			Latest []struct {
				Time json.RawMessage `json:"time"`
			} `json:"latest"`
		} `json:"recent"`
	} `json:"git"`
}

// checkTimes reports the first timestamp of data that is not an RFC 3339 time, by field.
func checkTimes(data []byte) error {
	var ts mapTimes
	if err := json.Unmarshal(data, &ts); err != nil {
		return jsonErr(err)
	}
	type stamp struct {
		field string
		value json.RawMessage
	}
	stamps := []stamp{{"generated_at", ts.GeneratedAt}}
	if g := ts.Git; g != nil {
		if g.Head != nil {
			stamps = append(stamps, stamp{"git.head.time", g.Head.Time})
		}
		stamps = append(stamps, stamp{"git.recent.since", g.Recent.Since})
		for i, c := range g.Recent.Latest {
			stamps = append(stamps, stamp{fmt.Sprintf("git.recent.latest[%d].time", i), c.Time})
		}
	}
	for _, r := range stamps {
		if len(r.value) == 0 || bytes.Equal(r.value, []byte("null")) {
			continue // absent: time.Time leaves it zero, and Validate says whether it must be set
		}
		var t time.Time
		if json.Unmarshal(r.value, &t) != nil {
			return rules.Errf(r.field, "must be an RFC 3339 time such as 2026-03-10T12:00:00Z")
		}
	}
	return nil
}
