package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// What the agent CLIs memhost knows write their transcripts in: JSON Lines, RFC 3339 stamps,
// and message content that is a string or a list of typed blocks. These helpers read those
// shapes for a TranscriptReader; what the lines mean is each provider's own.

// Bounds of a transcript read with OpenJSONL.
const (
	// MaxJSONLBytes: a longer file is read up to here (a session's start is then what is
	// read; its excerpt keeps the latest turns read).
	MaxJSONLBytes = 64 << 20
	// MaxJSONLLine: a longer line (a huge tool result) is skipped, not read.
	MaxJSONLLine = 4 << 20
)

// Refused is the answer for a transcript that is not provably the session's: reason is one
// line naming the failed check, without the file's content or path.
func Refused(reason string) Transcript { return Transcript{NotIsolated: reason} }

// ReadJSONL is the frame of a TranscriptReader over a JSON-lines file: a ctx that has ended
// is answered with its error, a file that cannot be read with Refused and why, and otherwise
// the answer is what read makes of the open file, closed after.
func ReadJSONL(ctx context.Context, path string, read func(*JSONL) Transcript) (Transcript, error) {
	if err := ctx.Err(); err != nil {
		return Transcript{}, err
	}
	l, err := OpenJSONL(path)
	if err != nil {
		return Refused(err.Error()), nil
	}
	defer func() { _ = l.Close() }()
	return read(l), nil
}

// JSONL yields a transcript's lines, skipping the over-long ones.
type JSONL struct {
	f *os.File
	r *bufio.Reader
}

// OpenJSONL opens the regular file at path for reading by lines, at most MaxJSONLBytes of it.
// Close it when done.
func OpenJSONL(path string) (*JSONL, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("the transcript cannot be read (%w)", errors.Unwrap(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("the transcript is not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the transcript cannot be read (%w)", errors.Unwrap(err))
	}
	return &JSONL{f: f, r: bufio.NewReaderSize(io.LimitReader(f, MaxJSONLBytes), 64<<10)}, nil
}

// Close closes the file.
func (l *JSONL) Close() error { return l.f.Close() }

// Next returns the next line of at most MaxJSONLLine bytes, or false at the end.
func (l *JSONL) Next() ([]byte, bool) {
	for {
		var line []byte
		long := false
		for {
			chunk, err := l.r.ReadSlice('\n')
			if !long {
				if len(line)+len(chunk) > MaxJSONLLine {
					long, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && len(line) == 0 && !long {
				return nil, false
			}
			break
		}
		if !long {
			return line, true
		}
	}
}

// ParseTime reads an RFC 3339 stamp; a missing or bad one is the zero time, which no window
// holds.
func ParseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// ContentText is a message's prose: its content when that is a string, else the text blocks
// of its block list (types "text", "input_text", "output_text" or none), one per line. Tool
// calls and results are left out: they are large, and the model's prose says what they did.
func ContentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text", "input_text", "output_text", "":
			if strings.TrimSpace(b.Text) != "" {
				parts = append(parts, b.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}
