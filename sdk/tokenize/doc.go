// Package tokenize owns memhost's text analysis: the one definition of which
// terms a text contains. The BM25 embedder plugin and the host's in-memory
// BM25 lexical index both use it, so a query term always means the same
// thing on both sides.
//
// # Algorithm
//
// Terms scans the text once, left to right:
//
//  1. Chunks. A chunk is a maximal run of letters, digits and the identifier
//     connectors '_', '-', '.', '/', '\\' and ':' that starts with a letter or
//     digit. Everything else (spaces, punctuation, symbols) separates chunks.
//     Trailing connectors are trimmed, so the full stop in "repo." is not
//     part of the chunk. An apostrophe between two letters ("don't",
//     "user's") is kept inside the chunk and elided from terms, giving
//     "dont" and "users".
//  2. Parts. A chunk is split at connectors, at lower-to-upper case changes
//     ("parseHTTP" -> parse|HTTP), before the last capital of an upper-case
//     run followed by lower case ("HTTPResponse" -> HTTP|Response) and at
//     letter/digit changes ("utf8" -> utf|8). So "internal/memory/service.go"
//     gives internal, memory, service, go and "parseHTTPResponse" gives
//     parse, http, response.
//  3. Filtering. Parts are lower-cased. Parts of one letter are dropped
//     (initials and single-letter variables carry no topic); single digits
//     are kept because version and step numbers ("v2", "step 3") do. Parts in
//     the stopword list are dropped.
//  4. Stemming. Parts made only of ASCII letters are reduced with the
//     Snowball English stemmer ("parse" -> "pars", "services" -> "servic").
//     Digits and non-ASCII words (other scripts, accented words) are kept
//     lower-cased but unstemmed, because an English stemmer would mangle
//     them.
//  5. Whole identifiers. When a chunk splits into two or more parts and at
//     least one survives filtering, the whole chunk, lower-cased and
//     unstemmed with its connectors, is emitted before its parts
//     ("parsehttpresponse", "internal/memory/service.go"). A query for the
//     exact identifier then matches it strongly while a query for one part
//     still matches.
//
// Terms keep text order and duplicates, because BM25 counts term frequency.
//
// # Stopwords
//
// The list is deliberately small: articles, pronouns, auxiliary verbs,
// conjunctions and the commonest prepositions (see Stopword). Negations
// ("not", "no", "never", "dont") are not stopwords: "use pnpm" and "do not use
// pnpm" are different facts. Domain words such as "use" or "file" are not
// stopwords either; scoring, not tokenisation, decides their weight.
//
// # Cost
//
// One pass over the input, no regular expressions; the only allocations are
// the returned slice and the term strings (AppendTerms reuses a caller's
// slice). Text without letters or digits allocates nothing.
package tokenize
