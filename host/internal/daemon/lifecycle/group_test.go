package lifecycle

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestGroupRunsUntilStopAndWaits(t *testing.T) {
	t.Parallel()
	var flushed atomic.Bool
	started := make(chan struct{})
	g := NewGroup(nil, Func("recorder", func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond) // flushing what it holds
		flushed.Store(true)
		return nil
	}))
	require.NoError(t, g.Start(context.Background()))
	require.Error(t, g.Start(context.Background()), "a group starts once")
	<-started
	require.NoError(t, g.Stop(context.Background()))
	require.True(t, flushed.Load(), "Stop waits for the service to finish")
}

func TestGroupRestartsFailedAndPanickingServices(t *testing.T) {
	t.Parallel()
	var errRuns, panicRuns atomic.Int32
	g := NewGroup(nil,
		Func("flaky", func(ctx context.Context) error {
			if errRuns.Add(1) < 3 {
				return errors.New("database blip")
			}
			<-ctx.Done()
			return nil
		}),
		Func("panicky", func(ctx context.Context) error {
			if panicRuns.Add(1) == 1 {
				panic("bug")
			}
			<-ctx.Done()
			return nil
		}))
	require.NoError(t, g.Start(context.Background()))
	require.Eventually(t, func() bool { return errRuns.Load() >= 3 && panicRuns.Load() >= 2 }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, g.Stop(context.Background()))
}

func TestGroupStopDeadlineNamesStragglers(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	g := NewGroup(nil, Func("stuck", func(ctx context.Context) error {
		<-ctx.Done()
		<-release
		return nil
	}))
	require.NoError(t, g.Start(context.Background()))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := g.Stop(ctx)
	require.ErrorContains(t, err, "stuck")
	close(release)
	require.NoError(t, g.Stop(context.Background()), "a later Stop waits for the rest")
}

func TestStopWithoutStart(t *testing.T) {
	t.Parallel()
	require.NoError(t, NewGroup(nil).Stop(context.Background()))
}
