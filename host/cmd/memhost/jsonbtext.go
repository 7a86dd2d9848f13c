package main

import (
	"bytes"
	"encoding/json"
	"strings"
)

// htmlEscapes are the escapes encoding/json writes for <, > and &, which jsonb prints as they are.
var htmlEscapes = map[string]byte{`\u003c`: '<', `\u003e`: '>', `\u0026`: '&'}

// jsonbText is a JSON document as PostgreSQL prints a jsonb value: ", " between elements,
// ": " after keys, and <, > and & as themselves. `memhost project map show --json` printed the
// map so when it read the database itself; through the host's REST answer the map arrives
// compacted, with those three escaped, and is printed the same. Key order is the document's
// own either way.
func jsonbText(raw json.RawMessage) string {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return string(raw)
	}
	in := compact.String()
	var out strings.Builder
	out.Grow(len(in) + len(in)/8)
	inString := false
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case inString && c == '\\':
			esc := in[i : i+2] // \" or \\ or the start of \uXXXX: never cut in valid JSON
			if r, ok := htmlEscapes[in[i:min(i+6, len(in))]]; ok {
				out.WriteByte(r)
				i += 5
				continue
			}
			out.WriteString(esc)
			i++
			continue
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			out.WriteString(string(c) + " ")
			continue
		}
		out.WriteByte(c)
	}
	return out.String()
}
