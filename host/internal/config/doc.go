// Package config owns the host's configuration: the Config struct, where its values come
// from and whether they make sense.
//
// Sources, lowest priority first: built-in defaults, a TOML file, MEMHOST_* environment
// variables, command-line flags. Load only gathers and decodes; Validate reports every
// problem at once (with the allowed range or values) so an operator fixes a config in one
// pass instead of one error per restart. Unknown keys in the file are problems too, because
// a typo that is silently ignored is the classic configuration bug.
//
// memhost.example.toml, embedded here as Example, documents every key; a test keeps it in
// step with the struct.
package config
