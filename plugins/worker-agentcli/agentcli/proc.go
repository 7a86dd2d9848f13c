package agentcli

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Output bounds: what a CLI may print before the plugin stops keeping it.
const (
	maxStdout = 8 << 20
	maxStderr = 64 << 10
)

// waitDelay is how long Wait waits for a CLI's output pipes once the
// process has exited or been killed: a descendant that left the group and
// holds them open must not stall the answer.
const waitDelay = 500 * time.Millisecond

// ran is what one CLI run left.
type ran struct {
	stdout, stderr *capped
	// err is Wait's error: nil after exit status 0.
	err error
}

// groups tracks the process groups of the CLIs running, so that Close can
// end them all.
type groups struct {
	mu   sync.Mutex
	live map[int]bool
}

func (g *groups) add(pgid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.live == nil {
		g.live = map[int]bool{}
	}
	g.live[pgid] = true
}

func (g *groups) remove(pgid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.live, pgid)
}

func (g *groups) killAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for pgid := range g.live {
		killGroup(pgid)
	}
}

// run runs bin in its own process group, in dir, with env, stdin given
// whole and then closed (no prompt can wait for an answer), and returns once
// it has exited. When ctx ends first, the whole group is killed; once the
// leader has exited, whatever it left in the group is killed too, so no
// descendant outlives the run.
func (g *groups) run(ctx context.Context, bin string, args, env []string, dir, stdin string) ran {
	r := ran{stdout: &capped{max: maxStdout}, stderr: &capped{max: maxStderr}}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout = r.stdout
	cmd.Stderr = r.stderr
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { killGroup(cmd.Process.Pid); return nil }
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		r.err = err
		return r
	}
	pgid := cmd.Process.Pid
	g.add(pgid)
	r.err = cmd.Wait()
	killGroup(pgid)
	g.remove(pgid)
	return r
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	max      int
	overflow bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room < len(p) {
		c.overflow = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

func (c *capped) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Bytes()
}
