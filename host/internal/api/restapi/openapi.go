package restapi

import _ "embed"

// openAPI is the OpenAPI 3.1 description of /api/v1; a test checks it lists every route.
//
//go:embed openapi.json
var openAPI []byte
