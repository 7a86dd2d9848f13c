package codex

import (
	"encoding/json"

	"github.com/memhost/memhost/sdk/provider"
)

// sessionMeta is what a rollout's first line, its session_meta record, says of the session:
// its id and working directory. Finish finds the session's rollout by it and Transcript proves
// the rollout the session's own by it: one reader of Codex's format for both.
type sessionMeta struct {
	ID  string `json:"id"`
	Cwd string `json:"cwd"`
}

// readSessionMeta reads the session_meta of the rollout at path.
func readSessionMeta(path string) (sessionMeta, bool) {
	l, err := provider.OpenJSONL(path)
	if err != nil {
		return sessionMeta{}, false
	}
	defer func() { _ = l.Close() }()
	return firstMeta(l)
}

// firstMeta reads the session_meta record from l's first line.
func firstMeta(l *provider.JSONL) (sessionMeta, bool) {
	first, ok := l.Next()
	var rec struct {
		Type    string      `json:"type"`
		Payload sessionMeta `json:"payload"`
	}
	if !ok || json.Unmarshal(first, &rec) != nil || rec.Type != "session_meta" {
		return sessionMeta{}, false
	}
	return rec.Payload, true
}
