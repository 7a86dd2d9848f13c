// Package config owns the host's configuration: the Config struct, where its values come
// from and whether they make sense.
//
// Sources, lowest priority first: built-in defaults, a TOML file, MEMHOST_* environment
// variables, command-line flags. Every key is reachable from each: the environment spells a
// key in capitals with "__" between levels, and takes a whole table (plugins.checksums,
// embedder.fold_thresholds, embedder.vector_weights, embedder.relevance_floors,
// ranking.half_life_days) as name=value pairs in one variable,
// since names such as bm25-v1-384 cannot be part of a variable name; --set KEY=VALUE sets
// any key from the command line. Load records where each value came from (Settings), so
// `memhost config check` can say it.
//
// Load only gathers and decodes; Validate reports every problem at once (with the allowed
// range or values) so an operator fixes a config in one pass instead of one error per
// restart. Unknown keys are problems too, because a typo that is silently ignored is the
// classic configuration bug.
//
// memhost.example.toml, embedded here as Example, documents every key; a test keeps it in
// step with the struct.
package config
