package migrations

import "embed"

// FS holds the migration files under sql/.
//
//go:embed sql/*.sql
var FS embed.FS

// Dir is the folder inside [FS] that holds the files.
const Dir = "sql"
