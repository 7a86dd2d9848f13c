package provider

import "unicode/utf8"

// The bounds the server adapter holds a Transcript answer to, so that it fits one gRPC message
// (4 MiB) whatever the session did: memhost reads prose for a bounded excerpt and ids and
// numbers for the session's record, never a whole tool output.
const (
	// MaxTranscriptText bounds one turn's text and one tool result; a longer one is clipped.
	MaxTranscriptText = 64 << 10
	// MaxTranscriptBytes bounds the whole answer: past it the oldest turns lose their texts
	// first (a session's end says what it did), then the oldest turns go.
	MaxTranscriptBytes = 3 << 20
	// turnOverhead is what a turn costs on the wire besides its texts and ids, roughly.
	turnOverhead = 32
)

// bounded is t as the Transcript RPC answers it for r: no turns beside a reason, only the turns
// inside r's window, every text clipped, the whole within MaxTranscriptBytes.
func (t Transcript) bounded(r TranscriptRequest) Transcript {
	if t.NotIsolated != "" {
		return Transcript{NotIsolated: t.NotIsolated}
	}
	var kept []Turn
	size := 0
	for _, tr := range t.Turns {
		if !r.Within(tr.At) {
			continue
		}
		tr.Text = clipText(tr.Text)
		tr.Calls = append([]ToolCall(nil), tr.Calls...)
		for i := range tr.Calls {
			tr.Calls[i].Result = clipText(tr.Calls[i].Result)
		}
		tr.Results = append([]ToolResult(nil), tr.Results...)
		for i := range tr.Results {
			tr.Results[i].Text = clipText(tr.Results[i].Text)
		}
		size += turnSize(tr)
		kept = append(kept, tr)
	}
	for i := 0; size > MaxTranscriptBytes && i < len(kept); i++ {
		size -= turnSize(kept[i])
		kept[i] = withoutTexts(kept[i])
		size += turnSize(kept[i])
	}
	for size > MaxTranscriptBytes && len(kept) > 0 {
		size -= turnSize(kept[0])
		kept = kept[1:]
	}
	return Transcript{Turns: kept}
}

// withoutTexts is tr with its prose and tool results emptied, its ids and cost kept.
func withoutTexts(tr Turn) Turn {
	tr.Text = ""
	for i := range tr.Calls {
		tr.Calls[i].Result = ""
	}
	for i := range tr.Results {
		tr.Results[i].Text = ""
	}
	return tr
}

func turnSize(tr Turn) int {
	n := turnOverhead + len(tr.Role) + len(tr.Text)
	for _, c := range tr.Calls {
		n += turnOverhead + len(c.ID) + len(c.Name) + len(c.Result)
	}
	for _, r := range tr.Results {
		n += turnOverhead + len(r.CallID) + len(r.Text)
	}
	return n
}

// clipText cuts s to MaxTranscriptText bytes on a rune boundary.
func clipText(s string) string {
	if len(s) <= MaxTranscriptText {
		return s
	}
	cut := MaxTranscriptText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
