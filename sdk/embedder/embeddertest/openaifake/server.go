package openaifake

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultDimensions is the width of the fake's vectors unless set.
const DefaultDimensions = 768

// DefaultModel is the model the fake serves unless set.
const DefaultModel = "fake-embed"

// OverLong is what the fake does with an input longer than MaxInputTokens.
type OverLong int

const (
	// OverLongError answers 400 naming the limit, as vLLM and Ollama do.
	OverLongError OverLong = iota
	// OverLongCut embeds only the first MaxInputTokens tokens and says
	// nothing, as some runtimes do with some models.
	OverLongCut
)

// Outage is whether the fake is reachable.
type Outage int

const (
	// Up serves requests.
	Up Outage = iota
	// Unavailable answers every request 503 with Retry-After.
	Unavailable
	// Refused closes the listening socket: connections are refused until
	// SetOutage(Up) listens again on the same address.
	Refused
	// Stalled accepts requests and answers none until the outage ends (then
	// they are served) or the client gives up: a wedged model server.
	Stalled
)

// Options configure the fake.
type Options struct {
	// Dimensions is the vectors' width; DefaultDimensions when 0. A
	// request's own dimensions field, when set and smaller, wins, as it
	// does for models that support shortening.
	Dimensions int
	// Model is the only model served; DefaultModel when empty. Other
	// models get 404 model_not_found.
	Model string
	// Key, when set, is the only bearer token accepted; any other gets a
	// 401 whose message quotes the token it got, as some runtimes do.
	Key string
	// MaxInputTokens is the model's context in the fake's tokens (see
	// Tokens); 0 is unlimited.
	MaxInputTokens int
	// OverLong is what happens to an input over MaxInputTokens.
	OverLong OverLong
	// MaxBatch is the most inputs one request may carry; 0 is unlimited.
	MaxBatch int
	// Truncate256 answers every vector cut to its first 256 values, in the
	// encoding asked for: the trap some SDK and runtime pairs fall into.
	Truncate256 bool
	// Prefixes are instruction prefixes the model was trained with (such
	// as "search_query: "): they are recognised and not embedded as
	// words. Nil means DefaultPrefixes.
	Prefixes []string
	// Latency delays every embeddings answer, for load tests.
	Latency time.Duration
	// Shared is the cosine two unrelated texts reach, in [0, 1): every vector leans on one
	// common direction, as real models' do (anisotropy; a modest sentence encoder puts unrelated
	// texts near .3, a word-vector model near .9). 0 leaves unrelated texts orthogonal.
	Shared float64
	// LatencyPerInput delays an embeddings answer this long for each input it
	// holds: a model on a CPU, whose cost grows with the batch.
	LatencyPerInput time.Duration
	// Serial answers one embeddings request at a time, the others waiting
	// their turn, as a runtime with one model instance on one thread does
	// (a request's latency counts from its turn).
	Serial bool
	// RetryAfter is the Retry-After of 429 and 503 answers, "1" when
	// empty.
	RetryAfter string
}

// DefaultPrefixes are the prefixes of the common asymmetric models
// (nomic-embed-text, e5).
var DefaultPrefixes = []string{"search_query: ", "search_document: ", "query: ", "passage: "}

// Request is what the fake received on /v1/embeddings.
type Request struct {
	Authorization  string
	Model          string
	Inputs         []string
	EncodingFormat string
	Dimensions     int
}

// Server is a running fake runtime. Its methods are safe for concurrent
// use.
type Server struct {
	opts Options
	addr string

	// turn is held by the embeddings request being answered (Options.Serial).
	turn    sync.Mutex
	mu      sync.Mutex
	srv     *http.Server
	serving sync.WaitGroup
	outage  Outage
	// outageEnds is closed when a Stalled outage ends.
	outageEnds chan struct{}
	rateLimit  int // how many coming embeddings requests answer 429
	reqs       []Request
	closed     bool
}

// New starts a fake runtime on a loopback port; Close stops it. It panics
// when it cannot listen, as httptest.NewServer does.
func New(opts Options) *Server {
	if opts.Dimensions == 0 {
		opts.Dimensions = DefaultDimensions
	}
	if opts.Model == "" {
		opts.Model = DefaultModel
	}
	if opts.Prefixes == nil {
		opts.Prefixes = DefaultPrefixes
	}
	if opts.RetryAfter == "" {
		opts.RetryAfter = "1"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("openaifake: listen: %v", err))
	}
	s := &Server{opts: opts, addr: ln.Addr().String()}
	s.serve(ln)
	return s
}

// Start is New for a test: the server closes when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := New(opts)
	t.Cleanup(s.Close)
	return s
}

// URL is the API root to configure a client with: http://127.0.0.1:port/v1.
func (s *Server) URL() string { return "http://" + s.addr + "/v1" }

// Dimensions is the width of the vectors the fake answers.
func (s *Server) Dimensions() int { return s.opts.Dimensions }

// Model is the model the fake serves.
func (s *Server) Model() string { return s.opts.Model }

// serve starts an HTTP server on ln; s.mu is held or s is new.
func (s *Server) serve(ln net.Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/embeddings", s.embeddings)
	mux.HandleFunc("/v1/models", s.models)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.srv = srv
	s.serving.Add(1)
	go func() {
		defer s.serving.Done()
		_ = srv.Serve(ln)
	}()
}

// SetOutage makes the fake reachable or not. Going from Refused to Up
// listens again on the same address, so clients configured with URL
// recover as they would when a real runtime restarts.
func (s *Server) SetOutage(o Outage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || o == s.outage {
		return
	}
	switch {
	case o == Refused:
		_ = s.srv.Close()
		s.serving.Wait()
		s.srv = nil
	case s.outage == Refused:
		ln, err := net.Listen("tcp", s.addr)
		if err != nil {
			panic(fmt.Sprintf("openaifake: listen again on %s: %v", s.addr, err))
		}
		s.serve(ln)
	}
	if o == Stalled {
		s.outageEnds = make(chan struct{})
	} else if s.outage == Stalled {
		close(s.outageEnds)
	}
	s.outage = o
}

// RateLimit makes the next n embeddings requests answer 429 with
// Retry-After.
func (s *Server) RateLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateLimit = n
}

// Requests returns the embeddings requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Close stops the server and waits for its goroutines.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if s.srv != nil {
		_ = s.srv.Close()
	}
	s.serving.Wait()
}

// Embed is the vector the fake answers for one input, prefixes and limits
// applied: what a test expects back for text.
func (s *Server) Embed(text string) []float32 {
	for _, p := range s.opts.Prefixes {
		if rest, ok := strings.CutPrefix(text, p); ok {
			text = rest
			break
		}
	}
	if s.opts.MaxInputTokens > 0 && s.opts.OverLong == OverLongCut {
		text = cut(text, s.opts.MaxInputTokens)
	}
	return lean(Vector(text, s.opts.Dimensions), s.opts.Shared)
}

// gate answers the request itself when the fake is unavailable or rate
// limited, or when the credentials are wrong; false means it did.
func (s *Server) gate(w http.ResponseWriter, r *http.Request, embeddings bool) bool {
	s.mu.Lock()
	outage, ends := s.outage, s.outageEnds
	s.mu.Unlock()
	if outage == Stalled {
		select {
		case <-ends:
		case <-r.Context().Done():
			return false
		}
	}
	s.mu.Lock()
	outage, limited := s.outage, embeddings && s.rateLimit > 0
	if limited {
		s.rateLimit--
	}
	s.mu.Unlock()
	switch {
	case outage == Unavailable:
		w.Header().Set("Retry-After", s.opts.RetryAfter)
		WriteError(w, http.StatusServiceUnavailable, "model is loading, try again later", "server_error", "", "")
		return false
	case s.opts.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.Key:
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		WriteError(w, http.StatusUnauthorized, fmt.Sprintf("Incorrect API key provided: %q", got), "invalid_request_error", "", "invalid_api_key")
		return false
	case limited:
		w.Header().Set("Retry-After", s.opts.RetryAfter)
		WriteError(w, http.StatusTooManyRequests, "Rate limit reached for requests", "requests", "", "rate_limit_exceeded")
		return false
	}
	return true
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	if !s.gate(w, r, false) {
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   []any{map[string]any{"id": s.opts.Model, "object": "model", "created": 0, "owned_by": "openaifake"}},
	})
}

// embeddingsRequest is the request body; input is a string or a list of
// strings.
type embeddingsRequest struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     int             `json:"dimensions"`
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		WriteError(w, http.StatusMethodNotAllowed, "use POST", "invalid_request_error", "", "")
		return
	}
	var req embeddingsRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		WriteError(w, http.StatusBadRequest, "request body is not JSON: "+err.Error(), "invalid_request_error", "", "")
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			WriteError(w, http.StatusBadRequest, "'input' must be a string or an array of strings", "invalid_request_error", "input", "")
			return
		}
		inputs = []string{one}
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{
		Authorization: r.Header.Get("Authorization"), Model: req.Model, Inputs: inputs,
		EncodingFormat: req.EncodingFormat, Dimensions: req.Dimensions,
	})
	s.mu.Unlock()
	if !s.gate(w, r, true) {
		return
	}
	if s.opts.Serial {
		s.turn.Lock()
		defer s.turn.Unlock()
	}
	if d := s.opts.Latency + time.Duration(len(inputs))*s.opts.LatencyPerInput; d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case req.Model != s.opts.Model:
		WriteError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model), "invalid_request_error", "model", "model_not_found")
		return
	case len(inputs) == 0:
		WriteError(w, http.StatusBadRequest, "'input' must not be empty", "invalid_request_error", "input", "")
		return
	case s.opts.MaxBatch > 0 && len(inputs) > s.opts.MaxBatch:
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("batch of %d inputs exceeds the maximum of %d", len(inputs), s.opts.MaxBatch), "invalid_request_error", "input", "")
		return
	case req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64":
		WriteError(w, http.StatusBadRequest, "'encoding_format' must be float or base64", "invalid_request_error", "encoding_format", "")
		return
	}
	dims := s.opts.Dimensions
	if req.Dimensions > 0 && req.Dimensions < dims {
		dims = req.Dimensions
	}
	data := make([]any, len(inputs))
	total := 0
	for i, text := range inputs {
		n := Tokens(text)
		total += n
		if s.opts.MaxInputTokens > 0 && n > s.opts.MaxInputTokens && s.opts.OverLong == OverLongError {
			WriteError(w, http.StatusBadRequest, fmt.Sprintf(
				"This model's maximum context length is %d tokens. However, you requested %d tokens in input %d. Please reduce the length of the input.",
				s.opts.MaxInputTokens, n, i), "invalid_request_error", "input", "context_length_exceeded")
			return
		}
		v := s.Embed(text)[:dims]
		if dims < s.opts.Dimensions {
			v = normalize(v)
		}
		if s.opts.Truncate256 && len(v) > 256 {
			v = v[:256]
		}
		var emb any = v
		if req.EncodingFormat == "base64" {
			emb = encodeBase64(v)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": emb}
	}
	WriteJSON(w, http.StatusOK, map[string]any{
		"object": "list", "model": s.opts.Model, "data": data,
		"usage": map[string]any{"prompt_tokens": total, "total_tokens": total},
	})
}

// encodeBase64 is OpenAI's base64 encoding: little-endian float32s.
func encodeBase64(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if n == 0 {
		out[0] = 1
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

// WriteError answers status with an OpenAI error body ({"error": {"message", "type", "param",
// "code"}}, param and code null when empty): how a fake of another OpenAI endpoint (chat
// completions, say) fails the way this one and the real APIs do.
func WriteError(w http.ResponseWriter, status int, message, typ, param, code string) {
	body := map[string]any{"message": message, "type": typ, "param": nil, "code": nil}
	if param != "" {
		body["param"] = param
	}
	if code != "" {
		body["code"] = code
	}
	WriteJSON(w, status, map[string]any{"error": body})
}

// WriteJSON answers status with v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
