package hostclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/wire"
)

// TokenSource grants a token bound to a project (spawn.MintTokens: minted through the
// database and kept in the user's 0600 cache). One that can also Forget a refused token gets
// a fresh one minted.
type TokenSource interface {
	Grant(ctx context.Context, project, cli string) (token string, release func(context.Context) error, err error)
}

// forgetter is a TokenSource that can drop a token the host refused.
type forgetter interface{ Forget(project string) }

// Forwarder is the stdio MCP server `memhost mcp` runs for a CLI that starts it in a session's
// directory: every request goes to the running host's /mcp with a token bound to Project, so
// the model never names the project and the token serves no other. It never opens the
// database's core. When no host answers it still completes the handshake, offers the tools
// it saw last time (ToolsCache), and answers each tool call with a clear error: memory never
// blocks an agent's work. A host that comes up later is picked up at the next call.
type Forwarder struct {
	Host    *Client
	Tokens  TokenSource
	Project string
	// ToolsCache keeps the host's tool list for sessions that start while it is down; ""
	// keeps none.
	ToolsCache string
	// Version is reported as serverInfo.version when no host answers.
	Version string
	// Logger receives what went wrong with the host (stderr: stdout carries MCP only).
	Logger *slog.Logger
}

// tokenClient names the tokens the forwarder mints.
const tokenClient = "mcp"

// Serve forwards one MCP client's session over in and out until input ends or ctx does.
// Every request read before end of input is answered first.
func (f *Forwarder) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	log := f.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	fw := &forwarding{f: f, log: log}
	defer fw.close(context.WithoutCancel(ctx))
	// The log is the CLI's stderr, which some CLIs show the user: one INFO line per session,
	// this one. The SDK's own session lines (five per session) are INFO too; only its warnings
	// and errors pass.
	log.Info("memhost mcp: serving the project's memory", "project", f.Project, "host", f.Host.URL)
	srv := mcp.NewServer(&mcp.Implementation{Name: "memhost", Title: "memhost project memory", Version: f.Version},
		&mcp.ServerOptions{HasTools: true, Logger: slog.New(atLeast{log.Handler(), slog.LevelWarn})})
	srv.AddReceivingMiddleware(fw.middleware)
	d := newDrainingIO(ctx, in, out)
	err := srv.Run(ctx, &mcp.IOTransport{Reader: d, Writer: d})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// forwarding is one session's link to the host, opened at the first request that needs it.
type forwarding struct {
	f   *Forwarder
	log *slog.Logger

	mu     sync.Mutex
	client *mcp.Implementation // the CLI, as it introduced itself: the host attributes writes to it
	// structured: the CLI asked for structured output, so the host is asked for it too.
	structured bool
	up         *mcp.ClientSession
	release    func(context.Context) error
}

func (fw *forwarding) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize", "server/discover":
			return fw.introduce(ctx, next, method, req)
		case "tools/list":
			params, _ := req.GetParams().(*mcp.ListToolsParams)
			return fw.listTools(ctx, params), nil
		case "tools/call":
			params, _ := req.GetParams().(*mcp.CallToolParamsRaw)
			if params == nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call needs params"}
			}
			return fw.callTool(ctx, params)
		}
		return next(ctx, method, req)
	}
}

// introduce answers the handshake (initialize, or server/discover from a 2026-07-28 client)
// locally and hands on the host's instructions, or says memory is down.
func (fw *forwarding) introduce(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	client := clientOf(req)
	var caps *mcp.ClientCapabilities
	if r, ok := req.(interface {
		ClientCapabilities() *mcp.ClientCapabilities
	}); ok {
		caps = r.ClientCapabilities()
	}
	if p, ok := req.GetParams().(*mcp.InitializeParams); ok {
		if p.ClientInfo != nil {
			client = p.ClientInfo
		}
		caps = p.Capabilities
	}
	fw.mu.Lock()
	if client != nil {
		fw.client = client
	}
	fw.structured = wire.AsksStructured(caps)
	fw.mu.Unlock()
	res, err := next(ctx, method, req)
	if err != nil {
		return res, err
	}
	instructions := ""
	if up, uerr := fw.upstream(ctx); uerr != nil {
		instructions = fw.unavailable(uerr) + " The memory tools answer with this error until the host is back."
	} else if ir := up.InitializeResult(); ir != nil {
		instructions = ir.Instructions
	}
	switch r := res.(type) {
	case *mcp.InitializeResult:
		r.Instructions = instructions
	case *mcp.DiscoverResult:
		r.Instructions = instructions
	}
	return res, nil
}

// clientOf is the client's name and version as a request carries them, if it does.
func clientOf(req mcp.Request) *mcp.Implementation {
	if r, ok := req.(interface{ ClientInfo() *mcp.Implementation }); ok {
		return r.ClientInfo()
	}
	return nil
}

// listTools returns the host's tools, or those it had last time when it does not answer.
func (fw *forwarding) listTools(ctx context.Context, params *mcp.ListToolsParams) *mcp.ListToolsResult {
	if params == nil {
		params = &mcp.ListToolsParams{}
	}
	up, err := fw.upstream(ctx)
	if err == nil {
		res, lerr := up.ListTools(ctx, params)
		if lerr == nil {
			if params.Cursor == "" && res.NextCursor == "" {
				fw.saveTools(res.Tools)
			}
			return res
		}
		fw.drop(up)
		err = lerr
	}
	fw.log.Warn("memhost mcp: offering the tools of the last session", "err", err)
	return &mcp.ListToolsResult{Tools: fw.loadTools()}
}

// callTool forwards a call. A session the host no longer knows (it restarted) is opened
// again once; a host that does not answer gives the model an error result to read.
func (fw *forwarding) callTool(ctx context.Context, p *mcp.CallToolParamsRaw) (mcp.Result, error) {
	call := &mcp.CallToolParams{Meta: p.Meta, Name: p.Name}
	if len(p.Arguments) > 0 {
		call.Arguments = p.Arguments
	}
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var up *mcp.ClientSession
		if up, err = fw.upstream(ctx); err != nil {
			break
		}
		var res *mcp.CallToolResult
		if res, err = up.CallTool(ctx, call); err == nil {
			return res, nil
		}
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) && rpcErr.Code != codeRejected {
			return nil, rpcErr // the host's own answer (unknown tool, bad params): as it is
		}
		fw.drop(up)
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fw.unavailable(err)}}}, nil
}

// codeRejected is the code of the SDK's "rejected by transport" error (its jsonrpc2.ErrRejected,
// which it does not export): the call did not get through (the connection broke, the host is
// gone or answered with an HTTP error) and a session opened again may carry it, unlike the
// host's own JSON-RPC answer.
const codeRejected = -32005

// unavailable says, for the model and without internals, that memory is down and why.
func (fw *forwarding) unavailable(err error) string {
	fw.log.Warn("memhost mcp: the host is unavailable", "host", fw.f.Host.URL, "err", err)
	reason := fmt.Sprintf("the memhost host at %s did not answer", fw.f.Host.URL)
	var op *net.OpError
	switch {
	case errors.As(err, &op) && op.Op == "dial", errors.Is(err, ErrUnreachable):
		reason = fmt.Sprintf("no memhost host is running at %s", fw.f.Host.URL)
	case errors.Is(err, ErrRefused):
		reason = "the memhost host refused this session's token"
	case errors.Is(err, errNoToken):
		reason = "no token for this project could be had (see the memhost mcp log)"
	}
	return "Project memory is unavailable: " + reason + ". Carry on without it; the user can start the host with `memhost serve`."
}

// errNoToken wraps a TokenSource's failure.
var errNoToken = errors.New("no token")

// upstream returns the session with the host, opening it with a token for the project. A kept
// token the host refuses is forgotten and a fresh one minted, once.
func (fw *forwarding) upstream(ctx context.Context) (*mcp.ClientSession, error) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.up != nil {
		return fw.up, nil
	}
	client := fw.client
	if client == nil {
		client = &mcp.Implementation{Name: "memhost-mcp", Version: fw.f.Version}
	}
	var opts *mcp.ClientOptions
	if fw.structured {
		opts = &mcp.ClientOptions{Capabilities: wire.StructuredClient()}
	}
	for attempt := 0; ; attempt++ {
		token, release, err := fw.f.Tokens.Grant(ctx, fw.f.Project, tokenClient)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errNoToken, err)
		}
		rt := &bearer{token: token, base: http.DefaultTransport}
		cctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
		cs, err := mcp.NewClient(client, opts).Connect(cctx, &mcp.StreamableClientTransport{
			Endpoint: fw.f.Host.MCPURL(), HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1, DisableStandaloneSSE: true,
		}, nil)
		cancel()
		if err == nil {
			fw.up, fw.release = cs, release
			return cs, nil
		}
		_ = release(ctx)
		if !rt.refused.Load() {
			return nil, err
		}
		f, ok := fw.f.Tokens.(forgetter)
		if !ok || attempt > 0 {
			return nil, ErrRefused
		}
		f.Forget(fw.f.Project)
	}
}

// drop forgets a session that failed, so the next request opens a fresh one.
func (fw *forwarding) drop(up *mcp.ClientSession) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.up == up {
		_ = up.Close()
		fw.up = nil
	}
}

func (fw *forwarding) close(ctx context.Context) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.up != nil {
		_ = fw.up.Close()
		_ = fw.release(ctx)
		fw.up = nil
	}
}

// bearer adds the token to every request to the host and notes a refusal.
type bearer struct {
	token   string
	base    http.RoundTripper
	refused atomic.Bool
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	resp, err := b.base.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		b.refused.Store(true)
	}
	return resp, err
}

// saveTools keeps the host's tool list (names, descriptions and schemas: nothing secret)
// for a session that starts while the host is down.
func (fw *forwarding) saveTools(tools []*mcp.Tool) {
	if fw.f.ToolsCache == "" {
		return
	}
	data, err := json.Marshal(tools)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(fw.f.ToolsCache), 0o700)
	}
	if err == nil {
		// Sessions of several CLIs write it at once: each through its own temporary file.
		var tmp *os.File
		if tmp, err = os.CreateTemp(filepath.Dir(fw.f.ToolsCache), ".tools-"); err == nil {
			_, err = tmp.Write(data)
			if cerr := tmp.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = os.Rename(tmp.Name(), fw.f.ToolsCache)
			}
			if err != nil {
				_ = os.Remove(tmp.Name())
			}
		}
	}
	if err != nil {
		fw.log.Warn("memhost mcp: keep the tool list", "err", err)
	}
}

func (fw *forwarding) loadTools() []*mcp.Tool {
	tools := []*mcp.Tool{}
	if fw.f.ToolsCache == "" {
		return tools
	}
	if data, err := os.ReadFile(fw.f.ToolsCache); err == nil {
		_ = json.Unmarshal(data, &tools)
	}
	return tools
}

// atLeast passes on the records of its handler at min or above.
type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(attrs []slog.Attr) slog.Handler {
	return atLeast{h.Handler.WithAttrs(attrs), h.min}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{h.Handler.WithGroup(name), h.min}
}
