// Package projectmap owns the project map: a deterministic, LLM-free description of a source
// tree that saves an agent the thousands of tokens it would otherwise spend discovering it —
// languages, frameworks and tools from marker files, the build, test and lint commands the
// project declares, the top-level layout with its modules and entry points, and git's branch,
// HEAD and last week's activity.
//
// Build computes a Map from a directory; Map.Summary renders the compact text the spawn banner
// embeds; the JSON form (Map's field tags, versioned by its "format" field, read back with
// Decode) is what a CLI on one machine uploads to a host on another. The map is computed where
// the project lives, so this package touches only the local filesystem and the git binary, and
// is bounded in time and size on any tree. docs/project-map.md documents the format and the
// bounds.
package projectmap
