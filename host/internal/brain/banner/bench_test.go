package banner

import (
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer/codec"
)

// BenchmarkRender renders a full banner from 200 candidate facts at the default budget and
// reports p50 and p99 besides the mean, and the CPU time per render (user + system, GC
// included), which a busy machine's run queue does not inflate as it does wall time. "warm" is the steady state of a running host (the
// token memo already knows the words); "cold" empties the memo before every render, the
// worst case: every piece goes through the library.
func BenchmarkRender(b *testing.B) {
	in := fullInput(200)
	opts := Options{CLI: CLIClaude}
	for _, mode := range []string{"warm", "cold"} {
		b.Run(mode, func(b *testing.B) {
			_, err := Render(in, opts)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			took := make([]time.Duration, 0, 1024)
			cpu := cpuTime(b)
			for b.Loop() {
				if mode == "cold" {
					b.StopTimer()
					resetMemo()
					b.StartTimer()
				}
				start := time.Now()
				if _, err := Render(in, opts); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			b.ReportMetric(float64((cpuTime(b)-cpu).Nanoseconds())/float64(len(took)), "cpu-ns/op")
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}

// BenchmarkCountTokens compares CountTokens on a full banner with the library's own Count.
func BenchmarkCountTokens(b *testing.B) {
	res, err := Render(fullInput(200), Options{CLI: CLIClaude})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("memo", func(b *testing.B) {
		for b.Loop() {
			CountTokens(res.Text)
		}
	})
	b.Run("library", func(b *testing.B) {
		lib := codec.NewCl100kBase()
		for b.Loop() {
			if _, err := lib.Count(res.Text); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func resetMemo() {
	counter.once.Do(counter.init)
	counter.mu.Lock()
	defer counter.mu.Unlock()
	clear(counter.memo)
}
