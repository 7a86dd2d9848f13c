package standin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Protocol is a model wire protocol a stand-in speaks.
type Protocol string

// The protocols of the three CLIs.
const (
	// Anthropic is the Messages API (Claude Code).
	Anthropic Protocol = "anthropic"
	// Responses is the OpenAI Responses API (Codex).
	Responses Protocol = "responses"
	// Gemini is generateContent / streamGenerateContent (Gemini CLI).
	Gemini Protocol = "gemini"
)

// Fixed answers outside the script.
const (
	// AuxiliaryText answers model calls that offer no tools, unless they ask for JSON.
	AuxiliaryText = "OK."
	// DoneText answers tool-offering calls once the script is used up.
	DoneText = "Done."
)

// maxBody bounds one request body; a CLI's full context stays far below it.
const maxBody = 64 << 20

// Server is one stand-in model endpoint on a loopback port.
type Server struct {
	proto Protocol
	wire  wire
	http  *http.Server
	ln    net.Listener
	done  chan struct{}

	mu        sync.Mutex
	script    []Turn
	next      int
	loadedFor int // the turn a deferred-tool load was issued for (one load per turn)
	seq       int
	requests  []Request
	calls     []IssuedCall
	unhandled []string
	rules     []rule
}

// rule answers the requests whose text holds contains with turn (When).
type rule struct {
	contains string
	turn     Turn
}

// wire is what differs between protocols.
type wire interface {
	// modelCall reports whether r asks the model for a turn.
	modelCall(r *http.Request) bool
	// parse reads a model call.
	parse(r *http.Request, body []byte) (parsed, error)
	// write answers a model call.
	write(w http.ResponseWriter, p parsed, a answer)
	// serveOther answers the protocol's other endpoints (token counts, model lists); false
	// means the path is unknown.
	serveOther(w http.ResponseWriter, r *http.Request, body []byte) bool
}

// parsed is what the stand-in needs from a model call.
type parsed struct {
	tools   []tool
	results []ToolResult
	stream  bool
	model   string
	// schema is the JSON schema of a structured answer the request asks for, if any.
	schema any
}

// tool is one offered tool: its name on the wire and, for Codex, its namespace.
type tool struct{ full, name, namespace string }

// answer is what one model call gets: text, or a call of one tool.
type answer struct {
	id   string
	text string
	call *IssuedCall
	tool tool
}

// New returns a stand-in for proto that follows script; Start serves it.
func New(proto Protocol, script ...Turn) (*Server, error) {
	var w wire
	switch proto {
	case Anthropic:
		w = anthropicWire{}
	case Responses:
		w = responsesWire{}
	case Gemini:
		w = geminiWire{}
	default:
		return nil, fmt.Errorf("standin: protocol %q: want %q, %q or %q", proto, Anthropic, Responses, Gemini)
	}
	return &Server{proto: proto, wire: w, script: script, loadedFor: -1, done: make(chan struct{})}, nil
}

// When makes every tool-offering request whose text holds contains get turn, beside the
// script, which it leaves where it is; a request that also carries a tool result gets
// DoneText. It serves CLIs run headless as memhost's workers: each task is a fresh process
// that asks once (its instructions name the task) and, after a tool call, once more with the
// result, in whatever order the host sends the tasks. Call it before Start.
func (s *Server) When(contains string, turn Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, rule{contains: contains, turn: turn})
}

// Start listens on a free loopback port and serves until Close.
func (s *Server) Start() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("standin: listen: %w", err)
	}
	s.ln = ln
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln)
	}()
	return nil
}

// Close stops the server, waiting up to five seconds for open streams.
func (s *Server) Close() error {
	if s.http == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.http.Close()
	}
	<-s.done
	if err != nil {
		return fmt.Errorf("standin: close: %w", err)
	}
	return nil
}

// URL is the server's base URL, http://127.0.0.1:PORT (no trailing slash).
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Protocol is the protocol the server speaks.
func (s *Server) Protocol() Protocol { return s.proto }

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Calls returns the tool calls issued so far.
func (s *Server) Calls() []IssuedCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]IssuedCall(nil), s.calls...)
}

// Unhandled returns "METHOD path" of every request answered 404, so a test can show what a
// new CLI version started asking for.
func (s *Server) Unhandled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unhandled...)
}

// TurnsLeft is how many scripted turns are still to be consumed.
func (s *Server) TurnsLeft() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script) - s.next
}

// ResultOf finds the result of the call with this id in the requests after it was issued.
func (s *Server) ResultOf(callID string) (ToolResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.requests {
		for _, res := range r.ToolResults {
			if res.CallID == callID {
				return res, true
			}
		}
	}
	return ToolResult{}, false
}

// ServeHTTP records the request and answers it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		http.Error(w, "request body: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body, Turn: -1}
	if !s.wire.modelCall(r) {
		s.record(rec)
		if !s.wire.serveOther(w, r, body) {
			s.mu.Lock()
			s.unhandled = append(s.unhandled, r.Method+" "+r.URL.Path)
			s.mu.Unlock()
			http.NotFound(w, r)
		}
		return
	}
	p, err := s.wire.parse(r, body)
	if err != nil {
		s.record(rec)
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"type": "invalid_request_error", "message": err.Error()}})
		return
	}
	for _, t := range p.tools {
		rec.Tools = append(rec.Tools, t.full)
	}
	rec.ToolResults = p.results
	a := s.decide(&rec, p)
	s.wire.write(w, p, a)
}

func (s *Server) record(rec Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, rec)
}

// decide records the request and picks its answer: auxiliary calls get fixed text, tool-
// offering calls the next scripted turn (or a deferred-tool load first).
func (s *Server) decide(rec *Request, p parsed) answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	a := answer{id: fmt.Sprintf("%s_standin_%d", s.proto, s.seq)}
	idx := len(s.requests)
	defer func() {
		for i := range rec.ToolResults {
			res := &rec.ToolResults[i]
			if res.Name == "" {
				res.Name = s.callName(res.CallID)
			}
			if res.CallID == "" {
				res.CallID = s.lastCallID(res.Name) // a protocol that echoes no id (older Gemini CLIs)
			}
		}
		s.requests = append(s.requests, *rec)
	}()
	if len(p.tools) == 0 {
		rec.Auxiliary = true
		a.text = AuxiliaryText
		return a
	}
	names := make([]string, len(p.tools))
	for i, t := range p.tools {
		names[i] = t.full
	}
	if r, ok := s.ruleFor(rec); ok {
		switch full, offered := "", false; {
		case len(p.results) > 0:
			a.text = DoneText
		case r.turn.Call == nil:
			a.text = r.turn.Text
		default:
			if full, offered = matchTool(names, r.turn.Call.Name); offered {
				return s.issue(a, idx, toolByFull(p.tools, full), r.turn.Call.Args, false)
			}
			a.text = fmt.Sprintf("standin: the rule for %q calls %q, which this request does not offer", r.contains, r.turn.Call.Name)
		}
		return a
	}
	if s.next >= len(s.script) {
		a.text = DoneText
		return a
	}
	turn := s.script[s.next]
	if turn.Call == nil {
		rec.Turn = s.next
		s.next++
		a.text = turn.Text
		return a
	}
	if full, ok := matchTool(names, turn.Call.Name); ok {
		rec.Turn = s.next
		s.next++
		return s.issue(a, idx, toolByFull(p.tools, full), turn.Call.Args, false)
	}
	// Claude Code defers MCP tools: their names appear in the context and ToolSearch loads
	// them. Load the wanted one and keep the turn for the request that offers it.
	if loader, ok := matchTool(names, "ToolSearch"); ok && s.loadedFor != s.next {
		if deferred := findDeferred(rec.Text(), turn.Call.Name); deferred != "" {
			s.loadedFor = s.next
			args, _ := json.Marshal(map[string]any{"query": "select:" + deferred, "max_results": 5}) // strings and an int: cannot fail
			return s.issue(a, idx, toolByFull(p.tools, loader), args, true)
		}
	}
	rec.Turn = s.next
	s.next++
	a.text = fmt.Sprintf("standin: script turn %d calls %q, which this request does not offer", rec.Turn, turn.Call.Name)
	return a
}

// ruleFor is the first rule whose text rec holds.
func (s *Server) ruleFor(rec *Request) (rule, bool) {
	if len(s.rules) == 0 {
		return rule{}, false
	}
	text := rec.Text()
	for _, r := range s.rules {
		if strings.Contains(text, r.contains) {
			return r, true
		}
	}
	return rule{}, false
}

func (s *Server) issue(a answer, idx int, t tool, args json.RawMessage, loader bool) answer {
	c := IssuedCall{ID: fmt.Sprintf("call_standin_%d", s.seq), Name: t.full, Args: args, Request: idx, Loader: loader}
	s.calls = append(s.calls, c)
	a.call, a.tool = &c, t
	return a
}

func (s *Server) callName(id string) string {
	for _, c := range s.calls {
		if c.ID == id {
			return c.Name
		}
	}
	return ""
}

func (s *Server) lastCallID(name string) string {
	for i := len(s.calls) - 1; i >= 0; i-- {
		if s.calls[i].Name == name {
			return s.calls[i].ID
		}
	}
	return ""
}

func toolByFull(tools []tool, full string) tool {
	for _, t := range tools {
		if t.full == full {
			return t
		}
	}
	return tool{full: full, name: full}
}

// findDeferred finds a deferred tool's full name for name in a request's text: the longest
// word that is name itself or ends with a separator and name.
func findDeferred(text, name string) string {
	re := regexp.MustCompile(`[A-Za-z0-9_.:-]*` + regexp.QuoteMeta(name) + `\b`)
	best := ""
	for _, m := range re.FindAllString(text, -1) {
		if _, ok := matchTool([]string{m}, name); ok && len(m) > len(best) {
			best = m
		}
	}
	return best
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
