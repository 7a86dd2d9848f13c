// Package migrations embeds memhost's numbered SQL migrations.
//
// It lives in its own module because //go:embed cannot reach parent folders: the host imports
// [FS] and applies the files in order at boot (see host/internal/core/store). Files are named
// NNNN_description.sql, are forward-only, and each runs in one transaction. A migration that has
// landed on main is never edited; a change is a new file.
package migrations
