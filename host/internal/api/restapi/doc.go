// Package restapi owns memhost's REST surface under /api/v1 (gin): the same memory operations
// as the MCP tools plus pin/unpin and status, the operator's routes (maintenance, workers,
// reload; those acting on the whole host behind one guard, requireHostWide), the OpenAPI
// document that describes them
// (served at /api/v1/openapi.json), and the mapping from service errors to HTTP status codes
// and one JSON error shape:
//
//	{"error": {"code": "invalid_argument", "field": "text", "message": "text: must not be empty"}}
package restapi
