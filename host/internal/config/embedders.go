package config

import (
	"fmt"
	"strings"
	"time"
)

// Endpoint is one [embedders.NAME] table: a dense embedding endpoint and the plugin that
// reaches it. The host starts one plugin process per table and tells it only these settings
// (its MEMHOST_EMBEDDER_* environment), never the database URL. The names are the operator's,
// so the section is decoded by hand like [workers]; every key is still settable from the file,
// the environment (MEMHOST_EMBEDDERS__LOCAL__MODEL) and --set.
type Endpoint struct {
	// Plugin is the embedder plugin binary's name part: memhost-embedder-<plugin>.
	Plugin string
	// BaseURL is the API root, e.g. http://127.0.0.1:11434/v1.
	BaseURL string
	// Model is the embedding model.
	Model string
	// APIKeyEnv is the NAME of the variable holding the key; the host passes that variable
	// through, and the key is never in config.
	APIKeyEnv string
	// Dimensions is the model's width; 0 asks the runtime at start (which then must be up).
	Dimensions int
	// MaxInputTokens is the model's context; 0 leaves the plugin's default (512).
	MaxInputTokens int
	// QueryPrefix and DocumentPrefix are what an asymmetric model wants before a query and a
	// stored text; both empty leave the plugin's defaults for known model families.
	QueryPrefix, DocumentPrefix string
	// Timeout bounds one call; 0 leaves the plugin's default (30s).
	Timeout time.Duration
}

// embeddersKey is the section decoded by hand.
const embeddersKey = "embedders"

// MaxEmbedderDimensions is the widest vector the store indexes: pgvector's HNSW index takes at
// most 2,000 dimensions of type vector.
const MaxEmbedderDimensions = 2000

// ActiveAuto is embedder.active's default: the dense endpoint when one is configured and
// reachable (or its vectors are stored), else the BM25 floor, never downgrading.
const ActiveAuto = "auto"

// endpointFields are the keys of an [embedders.NAME] table.
var endpointFields = []string{"plugin", "base_url", "model", "api_key_env", "dimensions", "max_input_tokens", "query_prefix", "document_prefix", "timeout"}

// decodeEmbedders reads the embedders section (key "embedders.NAME.FIELD" -> value); values
// of the wrong type are problems for Validate, as in [workers].
func decodeEmbedders(all map[string]any) (map[string]Endpoint, []Problem) {
	out := map[string]Endpoint{}
	problems := namedTables(embeddersKey, "an embedder", all, endpointFields, nil, func(name, field string, v any) string {
		e := out[name]
		defer func() { out[name] = e }()
		var err error
		switch field {
		case "plugin":
			e.Plugin = fmt.Sprint(v)
		case "base_url":
			e.BaseURL = fmt.Sprint(v)
		case "model":
			e.Model = fmt.Sprint(v)
		case "api_key_env":
			e.APIKeyEnv = fmt.Sprint(v)
		case "query_prefix":
			e.QueryPrefix = fmt.Sprint(v)
		case "document_prefix":
			e.DocumentPrefix = fmt.Sprint(v)
		case "dimensions":
			e.Dimensions, err = decodeInt(v)
		case "max_input_tokens":
			e.MaxInputTokens, err = decodeInt(v)
		case "timeout":
			if e.Timeout, err = time.ParseDuration(strings.TrimSpace(fmt.Sprint(v))); err != nil {
				return fmt.Sprintf("%q is not a valid duration (e.g. 30s)", fmt.Sprint(v))
			}
		}
		if err != nil {
			return fmt.Sprintf("%q is not a valid whole number", fmt.Sprint(v))
		}
		return ""
	})
	return out, problems
}

// validateEmbedders checks the [embedders] tables and that embedder.active names one of them
// when it names a configured embedder.
func (v *validator) validateEmbedders(es map[string]Endpoint) {
	for _, name := range sortedKeys(es) {
		e, key := es[name], embeddersKey+"."+name
		switch {
		case !workerName.MatchString(name):
			v.add(key, "embedder names are 1-63 lower-case letters, digits, '_' or '-'")
		case name == ActiveAuto || name == "bm25":
			v.add(key, fmt.Sprintf("%q is reserved for embedder.active; choose another name", name))
		}
		if e.Plugin == "" {
			v.add(key+".plugin", "is required: the embedder plugin's name (memhost-embedder-<plugin>), e.g. openaicompat")
		} else if !workerName.MatchString(e.Plugin) {
			v.add(key+".plugin", fmt.Sprintf("%q is not a plugin name (memhost-embedder-<plugin>)", e.Plugin))
		}
		if e.Plugin == "openaicompat" {
			if e.BaseURL == "" {
				v.add(key+".base_url", "is required for plugin openaicompat (e.g. http://127.0.0.1:11434/v1)")
			}
			if e.Model == "" {
				v.add(key+".model", "is required for plugin openaicompat (e.g. nomic-embed-text)")
			}
		}
		v.baseURL(key+".base_url", e.BaseURL)
		v.keyEnv(key+".api_key_env", e.APIKeyEnv)
		if e.Dimensions > MaxEmbedderDimensions {
			v.add(key+".dimensions", fmt.Sprintf("%d is wider than the %d dimensions pgvector's HNSW index takes; choose a model of at most %d",
				e.Dimensions, MaxEmbedderDimensions, MaxEmbedderDimensions))
		} else {
			v.intRange(key+".dimensions", e.Dimensions, 0, MaxEmbedderDimensions)
		}
		if e.MaxInputTokens != 0 {
			v.intRange(key+".max_input_tokens", e.MaxInputTokens, 16, 1<<20)
		}
		if e.Timeout != 0 {
			v.duration(key+".timeout", e.Timeout, time.Second, 10*time.Minute)
		}
	}
}
