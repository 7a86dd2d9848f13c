package maintenance

import "time"

// Clock is the time the jobs and River's scheduling see. Tests pass one they move forward.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now implements Clock.
func (SystemClock) Now() time.Time { return time.Now() }

// riverTime gives River the same clock (rivertype.TimeGenerator).
type riverTime struct{ c Clock }

func (t riverTime) Now() time.Time { return t.c.Now() }

// NowOrNil returns nil for the wall clock, so River lets Postgres stamp its rows with now(),
// and the clock's time when a test has moved it.
func (t riverTime) NowOrNil() *time.Time {
	if _, wall := t.c.(SystemClock); wall {
		return nil
	}
	now := t.c.Now()
	return &now
}
