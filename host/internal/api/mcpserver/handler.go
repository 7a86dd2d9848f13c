package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/api/access"
)

// addTool registers a tool whose handler authorises the caller before running.
//
// The handler is registered raw (mcp.Server.AddTool), not typed (mcp.AddTool), for one reason:
// the typed path validates every call's output against the output schema by decoding it into
// a map and encoding it again, a quarter of a millisecond of CPU per search on two cores and
// garbage for the collector. The output schema is derived from the Go type that produces the
// output (schemaFor), and the tests validate every output they receive against it. Arguments
// are validated as the typed path does (toolArgs).
func addTool[In targeted, Out any](srv *mcp.Server, t *tools, spec toolSpec, run runFunc[In, Out]) {
	tool := spec.tool()
	in := schemaFor[In]()
	describe(in, t.describe)
	tool.InputSchema = in
	tool.OutputSchema = schemaFor[Out]()
	resolved, err := in.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema of %s: %v", tool.Name, err))
	}
	srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := toolArgs[In](req.Params.Arguments, resolved)
		if err != nil {
			return errorResult(err), nil
		}
		out, err := authorised(ctx, t, req, spec, args, run)
		if err != nil {
			var wire *jsonrpc.Error
			if errors.As(err, &wire) {
				return nil, wire
			}
			return errorResult(err), nil
		}
		// What the model reads is compact and frames stored text as data (Brief); programs that
		// ask for it also get the full structured output (wire.StructuredOutputExtension).
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: Brief(out)}}}
		if wantsStructured(req) {
			raw, err := json.Marshal(out)
			if err != nil {
				return nil, fmt.Errorf("marshal %s output: %w", tool.Name, err)
			}
			res.StructuredContent = json.RawMessage(raw)
		}
		return res, nil
	})
}

// authorised identifies the caller, checks its scope, project and read or write rate, and runs
// the tool.
func authorised[In targeted, Out any](ctx context.Context, t *tools, req *mcp.CallToolRequest, spec toolSpec, in In, run runFunc[In, Out]) (Out, error) {
	var zero Out
	name, need := spec.name, spec.scope()
	c, ok := callerFromToken(req)
	if !ok {
		t.log.ErrorContext(ctx, "mcp tool call without a principal", "tool", name)
		return zero, toolErrorf("unauthenticated: this call carries no memhost token")
	}
	if !c.can(need) {
		return zero, toolErrorf("forbidden: %s needs a token with the %s scope; token %q has %s",
			name, need, c.principal.Name, scopeList(c.principal.Scopes))
	}
	a, err := c.access(in.where())
	if err != nil {
		return zero, t.reportable(ctx, name, err)
	}
	limit := t.limits.Reads
	if spec.write {
		limit = t.limits.Writes
	}
	if err := access.Limit(limit, c.principal); err != nil {
		return zero, t.reportable(ctx, name, err)
	}
	out, err := run(ctx, c, a, in)
	if err != nil {
		return zero, t.reportable(ctx, name, err)
	}
	return out, nil
}

// toolArgs decodes a call's arguments as the SDK's typed handlers do: into a map, with the
// input schema's defaults applied, validated against it, then into In. The schema rejects
// properties In does not have, so decoding cannot drop or mismatch one.
func toolArgs[In any](raw json.RawMessage, resolved *jsonschema.Resolved) (In, error) {
	var in In
	// Decoding would replace invalid UTF-8 and unpaired surrogate escapes with U+FFFD; the
	// SDK hands the arguments over as they came on the wire (HTTP and stdio alike).
	if err := rules.CheckJSON(raw); err != nil {
		return in, fmt.Errorf("invalid argument %w", err)
	}
	v := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			return in, fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", err)
		}
		if v == nil { // "null"
			v = map[string]any{}
		}
	}
	if err := resolved.ApplyDefaults(&v); err != nil {
		return in, fmt.Errorf("validating \"arguments\": applying schema defaults: %w", err)
	}
	if err := resolved.Validate(&v); err != nil {
		return in, fmt.Errorf("validating \"arguments\": %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return in, fmt.Errorf("validating \"arguments\": %w", err)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return in, fmt.Errorf("validating \"arguments\": %w", err)
	}
	return in, nil
}

func errorResult(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}
