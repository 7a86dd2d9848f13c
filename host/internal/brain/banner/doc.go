// Package banner renders the spawn banner: the token-budgeted text an agent CLI reads when a
// session starts (goal, the facts relevant to the session's task when the caller knows it,
// plan, project-map summary, the newest facts, recent journal entries and top-ranked facts,
// then a note saying what was cut and which tool fetches it), and the context a prompt hook
// adds to a prompt (RenderPrompt), in the same line format.
//
// It owns the layout, the fill order and the token count, and nothing else: the caller
// gathers one project's content (ranked by rank.Score in spawn mode; the banner never ranks)
// and passes the clock, so Render is pure and deterministic. docs/banner.md describes the
// format and the rules.
package banner
