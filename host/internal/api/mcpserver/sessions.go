package mcpserver

import (
	"context"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/banner"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/wire"
)

// Session records (docs/value.md): a call that names its session, through the header memhost
// run puts in the MCP entry it hands a CLI (wire.SessionHeader), is recorded in the session's
// record: the memories a search returned or a get read (retrieved), those a store wrote
// (stored), the banner memory_load_context gave (given). A call without the header records
// nothing here; its session's transcript tells at the session's end. Recording never fails a
// call: a record that cannot be written is logged.

// sessionOf is the session req names, or none: a key the records refuse names none (the call
// is served; nothing is recorded).
func sessionOf(req *mcp.CallToolRequest) brain.SessionRef {
	if req.Extra == nil || req.Extra.Header == nil {
		return brain.SessionRef{}
	}
	key := req.Extra.Header.Get(wire.SessionHeader)
	if !brain.ValidSessionKey(key) {
		return brain.SessionRef{}
	}
	return brain.SessionRef{Key: key, Origin: wire.OriginRun}
}

// record adds uses to the caller's session record, if the call names a session.
func (t *tools) record(ctx context.Context, c caller, a memory.Access, uses []brain.Use) {
	if t.brain == nil || c.session.Key == "" || len(uses) == 0 {
		return
	}
	if err := t.brain.Record(ctx, a, c.session, uses); err != nil {
		t.log.WarnContext(ctx, "mcp: record the session's memories", "err", err)
	}
}

// retrieved is a use of a memory a tool result showed, costing its text's tokens.
func retrieved(id uuid.UUID, text, channel string) brain.Use {
	return brain.Use{ID: id, Event: store.EventRetrieved, Channel: channel, Tokens: banner.CountTokens(text)}
}

func searchUses(hits []memory.SearchHit) []brain.Use {
	uses := make([]brain.Use, len(hits))
	for i, h := range hits {
		uses[i] = retrieved(h.ID, h.Text, "search")
	}
	return uses
}
