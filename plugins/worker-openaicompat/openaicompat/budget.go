package openaicompat

// The prompt estimate: no tokenizer is at hand for an arbitrary runtime's
// model, so the plugin over-counts. English prose runs at about four bytes
// a token and code nearer three; bytesPerToken = 3 keeps the estimate above
// most real counts, so that output capped at budget − estimate leaves the
// total within the budget.
const (
	bytesPerToken = 3
	// messageOverhead covers the chat template's tokens around each
	// message (role markers, separators).
	messageOverhead = 8
	// minOutputTokens is the least output worth asking for: a task whose
	// budget leaves less is refused before any call.
	minOutputTokens = 16
)

// estimateTokens over-estimates the tokens of the given message texts.
func estimateTokens(texts ...string) int {
	n := 0
	for _, s := range texts {
		n += (len(s)+bytesPerToken-1)/bytesPerToken + messageOverhead
	}
	return n
}
