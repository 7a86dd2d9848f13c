package plugins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// maxOutputLine bounds how much of one line of plugin output is buffered
// before it is logged anyway.
const maxOutputLine = 64 << 10

// outputRelay forwards everything one plugin process writes into the host
// log, line by line and whatever the format, and remembers its last words
// for Status.
//
// go-plugin relays stderr itself, but logs every line that is not hclog JSON
// with a six-digit fractional timestamp at Debug, where a crashing plugin's
// last words (plain text, a Go panic trace, Node's console.error) vanish at
// the host's usual level. So the Supervisor silences go-plugin's relay (see
// muteRelay) and reads the raw lines from ClientConfig.Stderr here.
type outputRelay struct {
	logger hclog.Logger

	mu sync.Mutex
	// last is the first line of the latest panic, else the last line.
	last string
}

func newOutputRelay(logger hclog.Logger) *outputRelay { return &outputRelay{logger: logger} }

// stream returns a writer for one of the process's output streams.
func (r *outputRelay) stream(name string) *lineWriter { return &lineWriter{relay: r, stream: name} }

// lastWords is what the process said last: the first line of its latest
// panic, else its last line of output.
func (r *outputRelay) lastWords() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// lineWriter splits one stream into lines. go-plugin writes stderr line by
// line; the stdio streams of a Go plugin (its os.Stdout and os.Stderr after
// Serve, which go-plugin carries over gRPC) arrive in arbitrary chunks.
type lineWriter struct {
	relay  *outputRelay
	stream string

	mu      sync.Mutex
	buf     []byte
	inPanic bool // a panic or fatal error started: later plain lines are its trace
}

var _ io.Writer = (*lineWriter)(nil)

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.buf = append(w.buf, p...)
			if len(w.buf) >= maxOutputLine {
				w.emit()
			}
			break
		}
		w.buf = append(w.buf, p[:i]...)
		w.emit()
		p = p[i+1:]
	}
	return n, nil
}

// flush logs a last line that ended without a newline.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit()
	}
}

func (w *lineWriter) emit() {
	line := strings.TrimRight(string(w.buf), "\r")
	w.buf = w.buf[:0]
	if strings.TrimSpace(line) == "" {
		return
	}
	level, msg, args := w.parse(line)
	if w.stream != "stderr" {
		args = append(args, "stream", w.stream)
	}
	w.relay.logger.Log(level, msg, args...)

	w.relay.mu.Lock()
	defer w.relay.mu.Unlock()
	if !w.inPanic || startsPanic(line) || w.relay.last == "" {
		w.relay.last = OneLine(msg, maxReasonBytes)
	}
}

// parse reads hclog JSON (with any timestamp format), and treats anything
// else as plain text at Info, or at Error from the start of a panic on.
func (w *lineWriter) parse(line string) (hclog.Level, string, []any) {
	if strings.HasPrefix(line, "{") {
		var fields map[string]any
		if json.Unmarshal([]byte(line), &fields) == nil {
			if msg, ok := fields["@message"].(string); ok {
				level := hclog.Info
				if l, ok := fields["@level"].(string); ok && hclog.LevelFromString(l) != hclog.NoLevel {
					level = hclog.LevelFromString(l)
				}
				return level, msg, hclogArgs(fields)
			}
		}
	}
	for _, p := range []struct {
		prefix string
		level  hclog.Level
	}{{"[TRACE]", hclog.Trace}, {"[DEBUG]", hclog.Debug}, {"[INFO]", hclog.Info}, {"[WARN]", hclog.Warn}, {"[ERROR]", hclog.Error}} {
		if strings.HasPrefix(line, p.prefix) {
			return p.level, strings.TrimSpace(strings.TrimPrefix(line, p.prefix)), nil
		}
	}
	if startsPanic(line) {
		w.inPanic = true
	}
	if w.inPanic {
		return hclog.Error, line, nil
	}
	return hclog.Info, line, nil
}

// hclogArgs are an hclog JSON line's own key/value pairs, sorted, without
// the fields the host's logger writes itself.
func hclogArgs(fields map[string]any) []any {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		switch k {
		case "@message", "@level", "@timestamp", "@module", "@caller":
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	args := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		v := fields[k]
		if _, scalar := v.(string); !scalar {
			v = fmt.Sprint(v)
		}
		args = append(args, k, v)
	}
	return args
}

func startsPanic(line string) bool {
	return strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ")
}

// muteRelay wraps the logger given to go-plugin so that go-plugin's own
// stderr relay, which it names after the plugin binary, is switched off (an
// hclog logger at Off makes go-plugin skip it entirely); go-plugin's other
// messages (process started, exited) still reach the log.
type muteRelay struct {
	hclog.Logger
	binary string // file name of the plugin binary
}

func (l muteRelay) Named(name string) hclog.Logger {
	if name == l.binary {
		return hclog.New(&hclog.LoggerOptions{Level: hclog.Off, Output: io.Discard})
	}
	return l.Logger.Named(name)
}
