package storetest

import (
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

// exerciseChangeFeed runs the change feed other hosts follow: ordered and complete.
func exerciseChangeFeed(t *testing.T, k *kit) {
	ctx := k.ctx
	k.run(t, "ChangeFeedIsOrderedAndComplete", func(t *testing.T, s store.Store) {
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := Insert(ctx, s, NewWrite("p"+string(rune('a'+i%4)), "fact "+string(rune('a'+i)), Vec(i, 0)))
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
		changes, err := s.Changes(ctx, 0, 1000)
		require.NoError(t, err)
		require.Len(t, changes, 20)
		for i := 1; i < len(changes); i++ {
			require.Greater(t, changes[i].Seq, changes[i-1].Seq)
		}
		last := changes[len(changes)-1].Seq
		_, err = s.SetArchived(ctx, store.ArchiveParams{ID: changes[0].ID, Archived: true, Reason: "x", Actor: "t"})
		require.NoError(t, err)
		more, err := s.Changes(ctx, last, 1000)
		require.NoError(t, err)
		require.Len(t, more, 1)
		require.True(t, more[0].Archived)
		require.NoError(t, s.RecordHits(ctx, map[uuid.UUID]int64{changes[1].ID: 2}))
		none, err := s.Changes(ctx, more[0].Seq, 1000)
		require.NoError(t, err)
		require.Empty(t, none, "hits do not advance the feed")
		m, err := s.Get(ctx, changes[1].ID)
		require.NoError(t, err)
		require.EqualValues(t, 2, m.HitCount)
		require.NotNil(t, m.LastHitAt)
	})
}
