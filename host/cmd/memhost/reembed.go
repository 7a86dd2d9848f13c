package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/client/hostclient"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/jobs/maintenance"
	"github.com/memhost/memhost/host/internal/wire"
)

// reembedPoll is how often `memhost reembed` reads the progress while a run goes on, and how
// long --wait waits before another run when the last one could not embed (the embedder down,
// or another host re-embedding).
const reembedPoll = time.Second

// reembedCmd runs the re-embed job on the running host (admin): one run, or with --wait runs
// until every memory has a vector of the active embedder, showing a progress bar.
func reembedCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "reembed",
		Short: "Embed now, with the active embedder, the memories that lack its vector; --wait until none is left",
		Long: "Runs the maintenance job reembed on the running host: memories written under another embedder get a\n" +
			"vector of the active one (they are found lexically until then). With --wait it runs again until every\n" +
			"memory has one, waiting out embedder outages, with a progress bar on a terminal and plain lines otherwise.",
		Args: cobra.NoArgs,
		RunE: hostRunE(func(cmd *cobra.Command, h *hostAPI, _ []string) error {
			wait, _ := cmd.Flags().GetBool("wait")
			return reembed(cmd.Context(), h, cmd.OutOrStdout(), wait)
		}),
	}
	c.Flags().Bool("wait", false, "run until every memory has a vector of the active embedder")
	addTokenFlag(c)
	return c
}

func reembed(ctx context.Context, h *hostAPI, out io.Writer, wait bool) error {
	bar := newProgressBar(out)
	defer bar.end()
	runner := h.withTimeout(maintenanceRunTimeout)
	for {
		rep, unavailable, err := reembedRun(ctx, runner, h, bar)
		if err != nil {
			return err
		}
		p, err := reembedProgress(ctx, h)
		if err != nil {
			return err
		}
		bar.show(p)
		switch {
		case unavailable != "":
			bar.note(unavailable)
			if !wait {
				return fmt.Errorf("re-embed: %s", unavailable)
			}
		case p.Missing == 0:
			bar.note(fmt.Sprintf("done: every memory has a vector of %s", p.Embedder))
			return nil
		case !wait:
			bar.note(fmt.Sprintf("%d memories left; the job carries on every few minutes (memhost reembed --wait to follow it)", p.Missing))
			return nil
		case rep.Run.Examined > 0 && rep.Run.Changed == 0:
			// Every text the run read was refused by the embedder for good: more runs will not help.
			bar.note(fmt.Sprintf("%d memories left that %s refuses; they stay lexical-only", p.Missing, p.Embedder))
			return nil
		}
		until := time.Now().Add(reembedPoll)
		if p.RetryAt != nil {
			// The job backs off after embedder failures: trying sooner would only be refused.
			until = *p.RetryAt
		} else if rep.Run.Examined > 0 && unavailable == "" {
			continue
		}
		// Another host is on it, or the embedder is down: follow the progress until the next try.
		if err := followUntil(ctx, h, bar, until); err != nil {
			return err
		}
	}
}

// followUntil shows the progress every reembedPoll until t.
func followUntil(ctx context.Context, h *hostAPI, bar *progressBar, t time.Time) error {
	for {
		wait := min(time.Until(t), reembedPoll)
		if wait <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		if p, err := reembedProgress(ctx, h); err == nil {
			bar.show(p)
		}
	}
}

// reembedRun runs the job once, updating the bar from the host's status while it runs. An
// embedder outage, or the job backing off after one, comes back as unavailable (the host's
// words), not as an error.
func reembedRun(ctx context.Context, runner, h *hostAPI, bar *progressBar) (rep wire.MaintenanceReport, unavailable string, err error) {
	type answer struct {
		status int
		data   []byte
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		status, data, err := runner.call(ctx, http.MethodPost, "/api/v1/maintenance/"+maintenance.ReembedName+"/run", nil)
		done <- answer{status, data, err}
	}()
	tick := time.NewTicker(reembedPoll)
	defer tick.Stop()
	for {
		select {
		case a := <-done:
			if a.err != nil {
				return rep, "", a.err
			}
			var e wire.ErrorBody
			switch {
			case a.status == http.StatusServiceUnavailable && json.Unmarshal(a.data, &e) == nil && e.Error.Message != "":
				return rep, "embedder unavailable: " + strings.TrimPrefix(e.Error.Message, "unavailable: "), nil
			case a.status == http.StatusTooManyRequests && json.Unmarshal(a.data, &e) == nil && e.Error.Message != "":
				return rep, e.Error.Message, nil
			case a.status >= 300:
				return rep, "", hostclient.AnswerError(a.status, a.data)
			}
			if err := json.Unmarshal(a.data, &rep); err != nil {
				return rep, "", fmt.Errorf("read the host's answer: %w", err)
			}
			return rep, "", nil
		case <-tick.C:
			if p, err := reembedProgress(ctx, h); err == nil {
				bar.show(p)
			}
		}
	}
}

// reembedProgress reads the progress from the host's status.
func reembedProgress(ctx context.Context, h *hostAPI) (wire.ReembedProgress, error) {
	var s server.Status
	if err := h.do(ctx, http.MethodGet, "/api/v1/status", nil, &s); err != nil {
		return wire.ReembedProgress{}, err
	}
	if s.Reembed == nil {
		return wire.ReembedProgress{}, fmt.Errorf("the host reports no re-embed progress (its embedder cannot describe itself)")
	}
	return *s.Reembed, nil
}

// progressBar draws progress in place on a terminal and as plain lines (one per change)
// anywhere else, so logs and pipes get readable text.
type progressBar struct {
	out  io.Writer
	tty  bool
	last string
	drew bool // a bar is on the current terminal line
}

func newProgressBar(out io.Writer) *progressBar {
	b := &progressBar{out: out}
	if f, ok := out.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			b.tty = true
		}
	}
	return b
}

const barWidth = 30

func (b *progressBar) show(p wire.ReembedProgress) {
	line := reembedLine(p)
	if line == b.last {
		return
	}
	b.last = line
	if !b.tty {
		fmt.Fprintln(b.out, line)
		return
	}
	done := 1.0
	if p.Total > 0 {
		done = float64(p.Total-p.Missing) / float64(p.Total)
	}
	filled := int(math.Round(done * barWidth))
	fmt.Fprintf(b.out, "\r\033[K[%s%s] %s", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), line)
	b.drew = true
}

// note prints a line of its own below the bar.
func (b *progressBar) note(s string) {
	b.end()
	fmt.Fprintln(b.out, s)
}

// end moves past the bar's line.
func (b *progressBar) end() {
	if b.drew {
		fmt.Fprintln(b.out)
		b.drew = false
	}
}

// reembedLine is the progress in words, as `memhost status` shows it too.
func reembedLine(p wire.ReembedProgress) string {
	pct := 100.0
	if p.Total > 0 {
		pct = 100 * float64(p.Total-p.Missing) / float64(p.Total)
	}
	s := fmt.Sprintf("%s: %d of %d memories embedded (%.0f%%), %d left", p.Embedder, p.Total-p.Missing, p.Total, math.Floor(pct), p.Missing)
	if p.RatePerSecond > 0 {
		s += fmt.Sprintf(", %.0f/s", p.RatePerSecond)
	}
	if p.ETASeconds != nil && p.Missing > 0 {
		s += ", ETA " + (time.Duration(*p.ETASeconds) * time.Second).Round(time.Second).String()
	}
	if p.Yielding {
		s += fmt.Sprintf("; yielding to agents' calls (rested %s)", secondsText(p.YieldedSeconds))
	}
	if p.RetryAt != nil {
		s += fmt.Sprintf("; embedder failing (%s), next try %s", printable(p.LastError), localTime(*p.RetryAt))
	}
	return s
}

// secondsText is a time in seconds, rounded for reading.
func secondsText(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(100 * time.Millisecond).String()
}

// printReembed is the status page's line.
func printReembed(out io.Writer, p *wire.ReembedProgress) {
	if p == nil {
		return
	}
	fmt.Fprintf(out, "re-embed:    %s\n", reembedLine(*p))
}
