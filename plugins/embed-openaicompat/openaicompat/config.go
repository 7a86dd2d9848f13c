package openaicompat

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/sdk/openaihttp"
)

// The environment variables the plugin reads, and nothing else.
const (
	EnvName           = "MEMHOST_EMBEDDER_NAME"
	EnvModel          = "MEMHOST_EMBEDDER_MODEL"
	EnvBaseURL        = "MEMHOST_EMBEDDER_BASE_URL"
	EnvAPIKeyEnv      = "MEMHOST_EMBEDDER_API_KEY_ENV"
	EnvDimensions     = "MEMHOST_EMBEDDER_DIMENSIONS"
	EnvMaxInputTokens = "MEMHOST_EMBEDDER_MAX_INPUT_TOKENS"
	EnvMaxBatch       = "MEMHOST_EMBEDDER_MAX_BATCH"
	EnvQueryPrefix    = "MEMHOST_EMBEDDER_QUERY_PREFIX"
	EnvDocumentPrefix = "MEMHOST_EMBEDDER_DOCUMENT_PREFIX"
	EnvTimeout        = "MEMHOST_EMBEDDER_TIMEOUT"
	EnvFoldThreshold  = "MEMHOST_EMBEDDER_FOLD_THRESHOLD"
)

// endpointVars are the variables of the settings every OpenAI-compatible plugin reads alike.
var endpointVars = openaihttp.EndpointVars{Name: EnvName, Model: EnvModel, BaseURL: EnvBaseURL, APIKeyEnv: EnvAPIKeyEnv}

// Defaults for the optional settings.
const (
	DefaultName = "openaicompat"
	// DefaultMaxInputTokens is the context of the BERT-family models most
	// runtimes serve (bge, all-MiniLM); models with longer contexts may
	// raise it.
	DefaultMaxInputTokens = 512
	DefaultMaxBatch       = 64
	DefaultTimeout        = 30 * time.Second
	// DefaultFoldThreshold suits dense sentence-embedding models, whose
	// paraphrases of one fact score about 0.9 and above; calibrate a model
	// with sdk/embedder/calibration and set embedder.fold_thresholds.
	DefaultFoldThreshold = 0.92
)

// MaxDimensions is the widest vector memhost's store indexes: pgvector's
// HNSW index takes at most 2,000 dimensions of type vector.
const MaxDimensions = 2000

// BytesPerToken converts the model's context in tokens to the byte limit
// the plugin declares (Info.MaxInputBytes, to which the host cuts every
// text). Real tokenizers average about four bytes of English per token but
// fewer on code, symbols and other scripts; two keeps nearly every text
// within the context without measuring it with the model's tokenizer.
const BytesPerToken = 2

// Config is one configured embedder.
type Config struct {
	// Name is the configured embedder's name, for messages; the vector
	// space's name (Info.Name) comes from the model and the width.
	Name string
	// Model is sent as the request's model.
	Model string
	// BaseURL is the API root /embeddings hangs off, e.g.
	// http://127.0.0.1:11434/v1.
	BaseURL string
	// APIKey is sent as a bearer token when set; it does not print.
	APIKey openaihttp.Secret
	// APIKeyEnv names the variable APIKey came from.
	APIKeyEnv string
	// Dimensions is the width the model answers; 0 asks the runtime once.
	Dimensions int
	// MaxInputTokens is the model's context, checked against the runtime
	// (see Embedder.Health).
	MaxInputTokens int
	// MaxBatch is the most texts one request carries.
	MaxBatch int
	// QueryPrefix and DocumentPrefix are prepended to texts embedded for
	// a query or as a stored document, for asymmetric models.
	QueryPrefix, DocumentPrefix string
	// Timeout bounds one Embed, retries included.
	Timeout time.Duration
	// FoldThreshold is Describe's suggested fold threshold.
	FoldThreshold float64
	// HTTPClient makes the requests; nil means a client of its own.
	HTTPClient *http.Client
	// Logger receives retries; nil discards them.
	Logger hclog.Logger
}

// knownPrefixes are the instruction prefixes of asymmetric model families,
// used when neither prefix is configured: a model trained with them embeds
// worse without them.
var knownPrefixes = []struct{ family, query, document string }{
	{"nomic-embed", "search_query: ", "search_document: "},
	{"e5", "query: ", "passage: "},
}

// defaultPrefixes returns the prefixes model's family is known to want.
func defaultPrefixes(model string) (query, document string) {
	m := strings.ToLower(model)
	for _, k := range knownPrefixes {
		if strings.Contains(m, k.family) {
			return k.query, k.document
		}
	}
	return "", ""
}

// ConfigFromEnv reads the embedder's settings from getenv (os.Getenv in the
// plugin), the API key from the variable EnvAPIKeyEnv names. Its errors name
// the variable at fault and never quote the key.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	ep, err := openaihttp.EndpointFromEnv(getenv, endpointVars, DefaultName, "the embedding model to ask")
	c := Config{
		Name:           ep.Name,
		Model:          ep.Model,
		BaseURL:        ep.BaseURL,
		APIKey:         ep.APIKey,
		APIKeyEnv:      ep.APIKeyEnv,
		MaxInputTokens: DefaultMaxInputTokens,
		MaxBatch:       DefaultMaxBatch,
		Timeout:        DefaultTimeout,
		FoldThreshold:  DefaultFoldThreshold,
	}
	if err != nil {
		return c, err
	}
	positive := func(env string, dst *int) {
		s := strings.TrimSpace(getenv(env))
		if s == "" || err != nil {
			return
		}
		n, perr := strconv.Atoi(s)
		if perr != nil || n <= 0 {
			err = fmt.Errorf("%s %q: must be a positive whole number", env, s)
			return
		}
		*dst = n
	}
	positive(EnvDimensions, &c.Dimensions)
	positive(EnvMaxInputTokens, &c.MaxInputTokens)
	positive(EnvMaxBatch, &c.MaxBatch)
	if err != nil {
		return c, err
	}
	if c.Timeout, err = openaihttp.DurationFromEnv(getenv, EnvTimeout, DefaultTimeout); err != nil {
		return c, err
	}
	if s := strings.TrimSpace(getenv(EnvFoldThreshold)); s != "" {
		f, perr := strconv.ParseFloat(s, 64)
		if perr != nil || !(f > 0 && f <= 1) {
			return c, fmt.Errorf("%s %q: must be a number in (0, 1]", EnvFoldThreshold, s)
		}
		c.FoldThreshold = f
	}
	// Prefixes keep their spaces: "search_query: " needs its trailing one.
	q, qSet := lookup(getenv, EnvQueryPrefix)
	d, dSet := lookup(getenv, EnvDocumentPrefix)
	if !qSet && !dSet {
		q, d = defaultPrefixes(c.Model)
	}
	c.QueryPrefix, c.DocumentPrefix = q, d
	return c, c.validate()
}

// lookup reads an optional variable that may legitimately be set to a
// value with spaces; unset and empty are alike.
func lookup(getenv func(string) string, env string) (string, bool) {
	v := getenv(env)
	return v, v != ""
}

// validate reports the first setting of c that cannot work.
func (c Config) validate() error {
	if _, err := openaihttp.ParseBaseURL(c.BaseURL, EnvAPIKeyEnv); err != nil {
		return fmt.Errorf("%s: %w", EnvBaseURL, err)
	}
	switch {
	case c.Model == "":
		return fmt.Errorf("%s is not set: the embedding model to ask", EnvModel)
	case c.Dimensions < 0:
		return fmt.Errorf("%s %d: must be positive", EnvDimensions, c.Dimensions)
	case c.Dimensions > MaxDimensions:
		return tooWide(c.Model, c.Dimensions)
	case c.MaxInputTokens <= 0:
		return fmt.Errorf("%s %d: must be positive", EnvMaxInputTokens, c.MaxInputTokens)
	case c.MaxBatch <= 0:
		return fmt.Errorf("%s %d: must be positive", EnvMaxBatch, c.MaxBatch)
	case c.Timeout <= 0:
		return fmt.Errorf("%s %s: must be positive", EnvTimeout, c.Timeout)
	case !(c.FoldThreshold > 0 && c.FoldThreshold <= 1):
		return fmt.Errorf("%s %v: must be in (0, 1]", EnvFoldThreshold, c.FoldThreshold)
	}
	return nil
}

// tooWide is the refusal of a model wider than the store can index.
func tooWide(model string, dims int) error {
	return fmt.Errorf("model %q answers %d-dimensional vectors, wider than the %d dimensions pgvector's HNSW index takes for memhost's vectors: "+
		"choose an embedding model of at most %d dimensions (e.g. nomic-embed-text 768, bge-m3 1024)", model, dims, MaxDimensions, MaxDimensions)
}
