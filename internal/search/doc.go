// Package search finds every occurrence of a pattern in a text, bytewise:
// the matcher (a rare-byte and q-gram prefilter over KMP, linear in text
// plus pattern on every input), and the indexes that answer many
// questions of one text (sparse, gram and short), each with one lookup.
// Text keeps what the check's searches learn about a source; Searcher
// answers explain's and hints' many questions within a Budget. Offsets
// are bytes; callers convert them (internal/utext).
package search
