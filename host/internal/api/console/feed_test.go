package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/console"
	"github.com/memhost/memhost/host/internal/core/memory"
)

// stream opens the live feed for a signed-in client; events arrive on the channel.
func (c *client) stream(t *testing.T, path string, lastID string) (<-chan console.FeedEvent, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", c.b.srv.URL+path, nil)
	require.NoError(t, err)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := c.http.Do(req)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := make(chan console.FeedEvent, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "{}" {
				var e console.FeedEvent
				if json.Unmarshal([]byte(data), &e) == nil {
					events <- e
				}
			}
		}
	}()
	return events, func() { cancel(); <-done }
}

// next waits for the next event.
func next(t *testing.T, events <-chan console.FeedEvent) console.FeedEvent {
	t.Helper()
	select {
	case e := <-events:
		return e
	case <-time.After(5 * time.Second):
		t.Fatal("no event on the live feed")
	}
	return console.FeedEvent{}
}

// TestLiveFeed: a write, an archive and a restore reach the feed as they happen, named by what
// happened; a session bound to a project gets that project's events only; a browser that
// reconnects with the last event it saw gets what it missed.
func TestLiveFeed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	operator := b.signIn(t, b.token(t, "", auth.ScopeRead))
	bound := b.signIn(t, b.token(t, projectA, auth.ScopeRead))
	all, stopAll := operator.stream(t, "/console/feed", "")
	mine, stopMine := bound.stream(t, "/console/feed", "")
	defer stopAll()
	defer stopMine()

	inB := b.fact(t, projectB, "Project B deploys on Fridays.")
	e := next(t, all)
	require.Equal(t, inB.ID, e.ID)
	require.Equal(t, "add", e.Event)
	require.Equal(t, projectB, e.Project)

	start := time.Now()
	inA := b.fact(t, projectA, "We use pnpm, never npm.")
	e = next(t, mine)
	require.Equal(t, inA.ID, e.ID, "the bound session never saw project B's write")
	require.Less(t, time.Since(start), time.Second)
	require.Equal(t, "We use pnpm, never npm.", e.Text)
	require.Contains(t, e.URL, "/console/memories/"+inA.ID.String())
	require.Equal(t, inA.ID, next(t, all).ID)

	acc := memory.Access{Project: projectA, Actor: "op"}
	_, err := b.mem.Archive(ctx, acc, inA.ID, "stale")
	require.NoError(t, err)
	e = next(t, mine)
	require.Equal(t, "archive", e.Event)
	require.Equal(t, "op", e.Actor)
	require.Equal(t, "archive", next(t, all).Event)
	last := e.Seq
	stopMine()

	_, err = b.mem.Restore(ctx, acc, inA.ID)
	require.NoError(t, err)
	require.Equal(t, "restore", next(t, all).Event)
	again, stopAgain := bound.stream(t, "/console/feed", jsonInt(last))
	defer stopAgain()
	e = next(t, again)
	require.Equal(t, "restore", e.Event, "a reconnecting browser gets what it missed")
	require.Equal(t, inA.ID, e.ID)
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }
