package standin

import "encoding/json"

// fillSchema answers a request for structured output with the smallest JSON value its schema
// accepts: objects with every property, the first enum value, numbers at their minimum (or 0),
// strings as "standin".
// CLIs ask for such answers in side calls (routing classifiers, next-speaker checks, titles);
// the first enum value keeps them on their default path.
func fillSchema(schema any) string {
	b, err := json.Marshal(fillValue(schema, 0))
	if err != nil {
		return "{}"
	}
	return string(b)
}

func fillValue(schema any, depth int) any {
	m, ok := schema.(map[string]any)
	if !ok || depth > 16 {
		return nil
	}
	if enum, ok := m["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := m["type"].(string)
	if list, ok := m["type"].([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch typ {
	case "object", "OBJECT":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		for k, v := range props {
			out[k] = fillValue(v, depth+1)
		}
		return out
	case "array", "ARRAY":
		return []any{}
	case "string", "STRING":
		return "standin"
	case "integer", "INTEGER", "number", "NUMBER":
		if min, ok := m["minimum"].(float64); ok {
			return min // Gemini's router rejects a complexity_score below its minimum
		}
		return 0
	case "boolean", "BOOLEAN":
		return false
	}
	if props, ok := m["properties"].(map[string]any); ok {
		out := map[string]any{}
		for k, v := range props {
			out[k] = fillValue(v, depth+1)
		}
		return out
	}
	return nil
}
