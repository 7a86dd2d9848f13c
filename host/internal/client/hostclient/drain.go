package hostclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// drainTimeout bounds how long end of input waits for the answers still owed.
const drainTimeout = 30 * time.Second

// drainingIO sits between a stream transport and its reader and writer so that end of input
// does not cut off work already asked for. A client that pipes requests and closes stdin
// (`printf '...' | memhost mcp`) expects an answer to each; the SDK ends the session at EOF
// and drops whatever is still being served. drainingIO counts the JSON-RPC requests it reads
// and the responses written back, and holds EOF until every request has its answer (or
// drainTimeout passes, or ctx ends).
type drainingIO struct {
	ctx context.Context
	in  *bufio.Reader
	out io.Writer

	mu      sync.Mutex
	owed    map[string]struct{} // ids of requests read and not yet answered
	settled *sync.Cond
	partial []byte // the written bytes after the last newline
	pending []byte // the read bytes of the current line
}

func newDrainingIO(ctx context.Context, in io.Reader, out io.Writer) *drainingIO {
	d := &drainingIO{ctx: ctx, in: bufio.NewReader(in), out: out, owed: map[string]struct{}{}}
	d.settled = sync.NewCond(&d.mu)
	return d
}

// Read passes input through, noting requests line by line.
func (d *drainingIO) Read(p []byte) (int, error) {
	n, err := d.in.Read(p)
	d.mu.Lock()
	d.noteLines(&d.pending, p[:n], true)
	if err == io.EOF && len(d.pending) > 0 {
		d.note(d.pending, true)
		d.pending = nil
	}
	d.mu.Unlock()
	if err == io.EOF {
		d.wait()
	}
	return n, err
}

// Write passes output through, noting responses.
func (d *drainingIO) Write(p []byte) (int, error) {
	n, err := d.out.Write(p)
	d.mu.Lock()
	d.noteLines(&d.partial, p[:n], false)
	d.mu.Unlock()
	return n, err
}

// noteLines adds p to what *buf holds of the stream, notes each line it completes (requests
// or responses) and keeps the rest for the next call. d.mu is held.
func (d *drainingIO) noteLines(buf *[]byte, p []byte, requests bool) {
	*buf = append(*buf, p...)
	for {
		i := bytes.IndexByte(*buf, '\n')
		if i < 0 {
			return
		}
		d.note((*buf)[:i], requests)
		*buf = (*buf)[i+1:]
	}
}

// Close ends the input side; the SDK calls it when the session closes.
func (d *drainingIO) Close() error { return nil }

// message is the part of a JSON-RPC message that tells requests from responses.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// note records the messages of one line: requests read, responses written. d.mu is held.
func (d *drainingIO) note(line []byte, read bool) {
	line = bytes.TrimSpace(line)
	var msgs []message
	switch {
	case len(line) == 0:
		return
	case line[0] == '[':
		if json.Unmarshal(line, &msgs) != nil {
			return
		}
	default:
		var m message
		if json.Unmarshal(line, &m) != nil {
			return
		}
		msgs = []message{m}
	}
	for _, m := range msgs {
		if len(m.ID) == 0 || string(m.ID) == "null" {
			continue // a notification, or an answer to a message without an id
		}
		id := string(m.ID)
		switch {
		case read && m.Method != "":
			d.owed[id] = struct{}{}
		case !read && m.Method == "":
			delete(d.owed, id)
		}
	}
	if len(d.owed) == 0 {
		d.settled.Broadcast()
	}
}

// wait blocks until nothing is owed, drainTimeout passes or ctx ends.
func (d *drainingIO) wait() {
	stop := context.AfterFunc(d.ctx, d.wake)
	defer stop()
	timer := time.AfterFunc(drainTimeout, d.wake)
	defer timer.Stop()
	deadline := time.Now().Add(drainTimeout)
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.owed) > 0 && d.ctx.Err() == nil && time.Now().Before(deadline) {
		d.settled.Wait()
	}
}

func (d *drainingIO) wake() {
	d.mu.Lock()
	d.settled.Broadcast()
	d.mu.Unlock()
}
