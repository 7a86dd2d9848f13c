// Package jsonc reads the JSON-with-comments files coding CLIs keep their settings in (Gemini
// CLI's settings.json, VS Code-style configs): StripComments turns such a file into plain JSON
// for encoding/json. Provider plugins and the host's `memhost connect` share it, so both read a
// user's settings the same way.
package jsonc
