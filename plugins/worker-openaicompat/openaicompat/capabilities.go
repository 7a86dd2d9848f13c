package openaicompat

import (
	"encoding/json"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"
)

// format is how a task's JSON Schema is asked for, from the strongest to
// none. A runtime that rejects one is asked the next, and the process
// remembers: runtimes do not gain features while it runs.
type format int32

const (
	// formatJSONSchema: response_format {type: json_schema} with the
	// task's schema, which runtimes that support it enforce while decoding.
	formatJSONSchema format = iota
	// formatJSONObject: response_format {type: json_object}, any JSON; the
	// schema travels in the system message.
	formatJSONObject
	// formatNone: no response_format; the schema travels in the system
	// message and the answer is dug out of whatever prose comes back.
	formatNone
)

func (f format) String() string {
	return [...]string{"json_schema", "json_object", "none"}[f]
}

// capabilities is what this process has learned its runtime refuses.
type capabilities struct {
	// format is the strongest response_format not yet refused.
	format atomic.Int32
	// completionTokens is set once the runtime (or go-openai, for models
	// it knows) refused max_tokens in favour of max_completion_tokens.
	completionTokens atomic.Bool
}

func (c *capabilities) structured() format { return format(c.format.Load()) }

// downgrade records that the runtime refused f, unless a concurrent call
// already did; it reports the format to use next.
func (c *capabilities) downgrade(f format) format {
	c.format.CompareAndSwap(int32(f), int32(f+1))
	return c.structured()
}

// responseFormat is f's request field for schema, nil for formatNone.
func responseFormat(f format, name, schema string) *openai.ChatCompletionResponseFormat {
	switch f {
	case formatJSONSchema:
		return &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name:   name,
				Schema: json.RawMessage(schema),
				// Strict asks runtimes that can to guarantee the schema.
				// A runtime whose strict mode refuses the schema (some
				// demand every property required and no additional
				// properties) answers 400, and the json_object fallback
				// takes over, for the rest of the process.
				Strict: true,
			},
		}
	case formatJSONObject:
		return &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	default:
		return nil
	}
}
