package hostclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/wire"
)

// Client is a running memhost host as its clients reach it: the REST API and the MCP
// endpoint at URL.
type Client struct {
	// URL is the host's base URL, e.g. http://127.0.0.1:7420.
	URL string
	// HTTP makes the calls; nil means http.DefaultClient.
	HTTP *http.Client
	// Timeout bounds one call; 0 means DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout bounds one call: the host answers in milliseconds, and one that does not must
// not hold up a CLI's start for long.
const DefaultTimeout = 3 * time.Second

// maxAnswer bounds what is read from the host.
const maxAnswer = 8 << 20

var (
	// ErrRefused means the host refused the token (401): expired, revoked, or unknown to it.
	ErrRefused = errors.New("the host refused the token")
	// ErrUnreachable means no host answers at the URL.
	ErrUnreachable = errors.New("unreachable")
)

// MCPURL is the host's streamable HTTP MCP endpoint.
func (c *Client) MCPURL() string { return strings.TrimRight(c.URL, "/") + "/mcp" }

// ProjectPath is the API path of one of project's routes; the key, which holds slashes, is
// one escaped path segment.
func ProjectPath(project, route string) string {
	return "/api/v1/projects/" + url.PathEscape(project) + "/" + route
}

// JournalEntry is one session's record in the project journal.
type JournalEntry struct {
	Text    string `json:"text"`
	Agent   string `json:"agent"`
	Session string `json:"session,omitempty"`
	// Transcript is the session's excerpt for its summary (host/internal/client/transcript), or
	// TranscriptNote why there is none.
	Transcript     string `json:"transcript,omitempty"`
	TranscriptNote string `json:"transcript_note,omitempty"`
}

// Journal appends e to project's journal.
func (c *Client) Journal(ctx context.Context, token, project string, e JournalEntry) error {
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode journal entry: %w", err)
	}
	if err := c.Do(ctx, http.MethodPost, ProjectPath(project, "journal"), token, body, nil); err != nil {
		return fmt.Errorf("append to the journal: %w", err)
	}
	return nil
}

// Do sends one request and reads a successful answer into out: copied into a *bytes.Buffer,
// else decoded as JSON (nil ignores it). A refusal comes back as the host's own message, which
// names no internals; 401 is ErrRefused, no answer ErrUnreachable.
func (c *Client) Do(ctx context.Context, method, path, token string, body []byte, out any) error {
	status, data, err := c.Call(ctx, method, path, token, body)
	if err != nil {
		return err
	}
	if status >= 300 {
		return AnswerError(status, data)
	}
	switch o := out.(type) {
	case nil:
		return nil
	case *bytes.Buffer:
		o.Write(data)
		return nil
	default:
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("read the host's answer: %w", err)
		}
		return nil
	}
}

// AnswerError is the error for a refusal (status >= 300) with body data, as Do returns it.
func AnswerError(status int, data []byte) error {
	var e wire.ErrorBody
	hasMessage := json.Unmarshal(data, &e) == nil && e.Error.Message != ""
	switch {
	case status == http.StatusUnauthorized && hasMessage:
		return fmt.Errorf("%w: %s", ErrRefused, e.Error.Message)
	case status == http.StatusUnauthorized:
		return ErrRefused
	case hasMessage:
		return fmt.Errorf("host refused: %s", e.Error.Message)
	}
	return fmt.Errorf("host answered %d %s", status, http.StatusText(status))
}

// Call sends one request and returns the answer as it came, whatever its status (the
// unauthenticated /readyz answers 503 with the states a caller wants to show); err is only
// for a host that could not be reached or read (ErrUnreachable when none answers). A token ""
// sends no Authorization header.
func (c *Client) Call(ctx context.Context, method, path, token string, body []byte) (status int, data []byte, err error) {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.URL, "/")+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	client := c.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		// The URL error repeats the request; its cause is what to say. Only a refused dial
		// means no host: a host that answers too slowly is a failure to report.
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return 0, nil, fmt.Errorf("host %s %w: %v", c.URL, ErrUnreachable, errors.Unwrap(err))
		}
		return 0, nil, fmt.Errorf("call the host at %s: %v", c.URL, errors.Unwrap(err))
	}
	defer func() { _ = resp.Body.Close() }()
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return 0, nil, fmt.Errorf("read the host's answer: %w", err)
	}
	return resp.StatusCode, data, nil
}
