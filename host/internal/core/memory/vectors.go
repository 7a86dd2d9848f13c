package memory

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/sdk/embedder"
)

// This file is how a write's vector can follow it. A write waits at most Config.EmbedWait for
// its embedder (none at all for an embedder whose recent calls took more than half of that): a
// local CPU model takes 50-250 ms a text, and an agent's memory_store should not. Past the
// wait the text is stored at once, without its vector (store.Vector.Pending): search finds it
// lexically, and its fold was decided by the statement check alone (foldTarget). The vector
// follows through FollowVectors, which the host runs in the background: it takes the write's
// own embed call when it ends, or embeds the text again, and stores the vector while the
// memory still holds that text (store.Embedded). The queue is only a hint: a vector-less
// row is itself the durable record of the work left, so one the queue drops or a kill of the
// host loses gets its vector from the re-embed job (maintenance.reembed), which runs at every
// host's start and every few minutes after.

// VectorWriter stores the vectors that follow their writes (pgstore.Store implements it). A
// store without it makes every write wait for its vector.
type VectorWriter interface {
	PutVectors(ctx context.Context, embedder string, items []store.Embedded) (int, error)
}

// followQueue bounds the writes waiting for their vectors in one host; past it a write's
// vector is left to the re-embed job.
const followQueue = 4096

// followBatch is how many texts the follower embeds in one call. A slow CPU model's cost
// grows faster than linearly with a batch's tokens, so batches stay small.
const followBatch = 16

// embedResult is the outcome of a write's embed call.
type embedResult struct {
	vec store.Vector
	err error
}

// pendingVector is a write stored without its vector.
type pendingVector struct {
	id       uuid.UUID
	text     string
	embedder string    // the embedder the write was stored under
	at       time.Time // when the write was acknowledged
	// inflight is the write's own embed call, still running when the write stopped waiting;
	// nil when none was started (the embedder was known to be slow).
	inflight <-chan embedResult
}

// embedLatency is a moving average of an embedder's document calls of one text, which says
// whether a write should wait for it at all.
type embedLatency struct{ nanos atomic.Int64 }

// observe adds one call. The average moves an eighth of the way to each call, from zero: one
// slow call of a fast embedder (a cold start, a loaded machine) does not make it slow, while a
// CPU model's 50-250 ms calls make it slow within a few writes.
func (l *embedLatency) observe(d time.Duration) {
	for {
		old := l.nanos.Load()
		next := old + (int64(d)-old)/8
		if l.nanos.CompareAndSwap(old, next) {
			return
		}
	}
}

// vectorFollower is the Service's part of this file.
type vectorFollower struct {
	queue   chan pendingVector
	latency sync.Map     // embedder name -> *embedLatency
	running atomic.Int32 // FollowVectors loops running: without one, every write waits
}

func (s *Service) latencyOf(name string) *embedLatency {
	l, _ := s.follow.latency.LoadOrStore(name, &embedLatency{})
	return l.(*embedLatency)
}

// documentVector embeds a write's text, waiting at most Config.EmbedWait (not at all when the
// embedder's recent calls took more than half of it on average: a write would wait most of it
// for most calls). Past the wait it returns a pending vector
// and the call still running (nil when none was started), whose result the write hands to the
// follower. An embedder that fails within the wait fails the write, as before: memory never
// stores a text it cannot embed while the embedder says why at once. Without a follower
// running (FollowVectors) or a store that takes vectors later (VectorWriter), every write
// waits as long as its embedder takes.
func (s *Service) documentVector(ctx context.Context, e embedder.Embedder, info embedder.Info, text string) (store.Vector, <-chan embedResult, error) {
	wait := s.cfg.EmbedWait
	if _, ok := s.store.(VectorWriter); !ok || wait <= 0 || s.follow.running.Load() == 0 {
		v, err := s.embed(ctx, e, info, embedder.PurposeDocument, text)
		return v, nil, err
	}
	pending := store.Vector{Embedder: info.Name, Dimensions: info.Dimensions}
	latency := s.latencyOf(info.Name)
	if time.Duration(latency.nanos.Load()) > wait/2 {
		return pending, nil, nil
	}
	done := make(chan embedResult, 1)
	go func() {
		start := time.Now()
		// Detached from the request: when the write stops waiting, the call goes on (within the
		// plugin's call timeout) and its vector follows the write.
		v, err := s.embed(context.WithoutCancel(ctx), e, info, embedder.PurposeDocument, text)
		if err == nil {
			latency.observe(time.Since(start))
		}
		done <- embedResult{v, err}
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case r := <-done:
		return r.vec, nil, r.err
	case <-t.C:
		return pending, done, nil
	case <-ctx.Done():
		return store.Vector{}, nil, ctx.Err()
	}
}

// followVector queues a write stored without its vector; a full queue leaves it to the
// re-embed job.
func (s *Service) followVector(p pendingVector) {
	select {
	case s.follow.queue <- p:
		s.metrics.vectorFollow("queued", 1)
	default:
		s.metrics.vectorFollow("dropped", 1)
	}
}

// FollowVectors gives the writes stored without their vectors (documentVector) their
// vectors until ctx ends; the host runs it in the background. What is queued when it ends
// is left to the re-embed job.
func (s *Service) FollowVectors(ctx context.Context) error {
	s.follow.running.Add(1)
	defer s.follow.running.Add(-1)
	for {
		var batch []pendingVector
		select {
		case <-ctx.Done():
			return nil
		case p := <-s.follow.queue:
			batch = append(batch, p)
		}
	more:
		for len(batch) < followBatch {
			select {
			case p := <-s.follow.queue:
				batch = append(batch, p)
			default:
				break more
			}
		}
		if err := s.followBatch(ctx, batch); err != nil && ctx.Err() == nil {
			s.metrics.vectorFollow("failed", len(batch))
			s.onError(fmt.Errorf("vectors of %d new memories (the re-embed job will retry): %w", len(batch), err))
		}
	}
}

// followBatch stores the vectors of one batch of pending writes: the results of their own
// embed calls, and one call for the texts that have none.
func (s *Service) followBatch(ctx context.Context, batch []pendingVector) error {
	e, info, err := s.active(ctx)
	if err != nil {
		return err
	}
	items := make([]store.Embedded, 0, len(batch))
	var ats []time.Time // when each item's write was acknowledged
	var texts []string
	var rest []pendingVector
	for _, p := range batch {
		if p.embedder != info.Name {
			continue // the embedder changed since: the re-embed job gives every memory the new one's
		}
		if p.inflight != nil {
			select {
			case r := <-p.inflight:
				if r.err == nil {
					items = append(items, store.Embedded{ID: p.id, Hash: store.TextHash(p.text), Vector: r.vec})
					ats = append(ats, p.at)
					continue
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		texts = append(texts, p.text)
		rest = append(rest, p)
	}
	if len(texts) > 0 {
		start := time.Now()
		vecs, err := e.Embed(ctx, embedder.PurposeDocument, texts)
		if err != nil {
			return fmt.Errorf("embed with %s: %w", info.Name, err)
		}
		if len(vecs) != len(texts) {
			return fmt.Errorf("embedder %s returned %d vectors for %d texts", info.Name, len(vecs), len(texts))
		}
		if len(texts) == 1 {
			s.latencyOf(info.Name).observe(time.Since(start))
		}
		for i, p := range rest {
			items = append(items, store.Embedded{ID: p.id, Hash: store.TextHash(p.text),
				Vector: store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: vecs[i]}})
			ats = append(ats, p.at)
		}
	}
	if len(items) == 0 {
		return nil
	}
	if _, err := s.store.(VectorWriter).PutVectors(ctx, info.Name, items); err != nil {
		return err
	}
	s.metrics.vectorFollow("stored", len(items))
	for _, at := range ats {
		s.metrics.vectorLag(time.Since(at))
	}
	return nil
}
