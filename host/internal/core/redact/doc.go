// Package redact owns secret redaction on the write path: every free-text field of a write
// (memory text, agent, session, source, archive reason) passes through it before it is embedded
// or stored, so a token an agent pastes into a "fact" or a name never reaches the database, the
// history, exports, the embedder plugins or the logs.
//
// Detection is gitleaks' maintained default ruleset (hundreds of provider-specific rules
// plus its generic-key rule), so coverage improves by bumping a dependency rather than by
// curating regexes here. A few cheap extra rules cover what that ruleset misses in prose:
// password assignments and phrasings ("the admin password is ..."), secrets named the same way
// ("the secret key for prod is ...", "token: ..."), an AWS secret access key beside its key id,
// credentials embedded in URLs, OpenAI keys without the ruleset's marker, Authorization
// headers outside curl, and provider keys of their exact shape (ghp_ and 36 characters,
// AKIA and 16) whatever their entropy: gitleaks lets a documentation key or a sequence pass,
// but a value shaped like a key is one.
// corpus_test.go holds the evidence: generated secret shapes that must all be redacted, and
// prose about secrets that must come through untouched.
package redact
