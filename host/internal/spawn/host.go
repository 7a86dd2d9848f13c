package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/access"
)

// Host is a running memhost host as `memhost run` reaches it: its REST API for the banner and
// the journal, and its MCP endpoint, which the CLI is given.
type Host struct {
	// URL is the host's base URL, e.g. http://127.0.0.1:7420.
	URL string
	// Client makes the calls; nil means a client with a short timeout.
	Client *http.Client
}

// ErrRefused means the host refused the token (401): expired, revoked, or unknown to it.
var ErrRefused = errors.New("the host refused the token")

// hostTimeout bounds one call: the banner answers in milliseconds, and a host that does not
// must not hold up the CLI for long.
const hostTimeout = 3 * time.Second

// maxAnswer bounds what is read from the host.
const maxAnswer = 4 << 20

// MCPURL is the host's streamable HTTP MCP endpoint.
func (h *Host) MCPURL() string { return strings.TrimRight(h.URL, "/") + "/mcp" }

// Banner fetches project's banner for cli as plain text.
func (h *Host) Banner(ctx context.Context, token, project, cli string) (string, error) {
	q := url.Values{"format": {"text"}, "cli": {cli}}
	var text bytes.Buffer
	if err := h.do(ctx, http.MethodGet, projectPath(project, "banner")+"?"+q.Encode(), token, nil, &text); err != nil {
		return "", fmt.Errorf("fetch the banner: %w", err)
	}
	return text.String(), nil
}

// JournalEntry is one session's record in the project journal.
type JournalEntry struct {
	Text    string `json:"text"`
	Agent   string `json:"agent"`
	Session string `json:"session,omitempty"`
}

// Journal appends e to project's journal.
func (h *Host) Journal(ctx context.Context, token, project string, e JournalEntry) error {
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode journal entry: %w", err)
	}
	if err := h.do(ctx, http.MethodPost, projectPath(project, "journal"), token, body, nil); err != nil {
		return fmt.Errorf("append to the journal: %w", err)
	}
	return nil
}

// projectPath is the API path of one of project's routes; the key, which holds slashes, is
// one escaped path segment.
func projectPath(project, route string) string {
	return "/api/v1/projects/" + url.PathEscape(project) + "/" + route
}

// do sends one request; a text answer is copied into a *bytes.Buffer out. A refusal comes
// back as the host's own message, which names no internals.
func (h *Host) do(ctx context.Context, method, path, token string, body []byte, out *bytes.Buffer) error {
	ctx, cancel := context.WithTimeout(ctx, hostTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(h.URL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("host %s unreachable: %w", h.URL, errors.Unwrap(err))
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("read the host's answer: %w", err)
	}
	if resp.StatusCode == http.StatusUnauthorized {
		return ErrRefused
	}
	if resp.StatusCode >= 300 {
		var e access.ErrorBody
		if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
			return fmt.Errorf("host refused: %s", e.Error.Message)
		}
		return fmt.Errorf("host answered %s", resp.Status)
	}
	if out != nil {
		out.Write(data)
	}
	return nil
}
