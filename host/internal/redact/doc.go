// Package redact owns secret redaction on the write path: every memory text passes through
// it before it is embedded or stored, so a token an agent pastes into a "fact" never reaches
// the database, the embedder plugins or the logs.
//
// Detection is gitleaks' maintained default ruleset (hundreds of provider-specific rules
// plus its generic-key rule), so coverage improves by bumping a dependency rather than by
// curating regexes here. A few cheap extra rules cover what that ruleset misses in prose,
// checked by tests: password assignments and credentials embedded in URLs.
package redact
