package search

// Sizes the tests search at: the engine's limits (the contract's
// max_text_bytes and max_citations, and the MaxHintStarts occurrences
// hints keep), the largest inputs a search meets.
const (
	maxTextBytes = 512 << 10
	maxCitations = 256
	hintStarts   = 8
)
