package search

import "math"

// The hooks below let the engine's tests put a text in the states its
// searches reach only on some inputs, to hold the engine's answers in
// those states to the brute force's and to the scans'.

// NewIndexedText returns text with its sparse index built, whatever a
// plan would decide.
func NewIndexedText(text string) *Text { return &Text{text: text, sparse: newSparseIndex(text)} }

// Indexed reports whether the text's sparse index is built.
func (x *Text) Indexed() bool { return x.sparse != nil }

// Planned reports whether the text's plan is still to be decided.
func (x *Text) Planned() bool { return x.plan != nil }

// IndexNow gives the text's searcher its gram index now, whatever the
// scans so far; unguarded, with the index's guards off, so that it
// answers every question a pattern's length allows, however slowly, tiny
// texts included.
func (x *Text) IndexNow(unguarded bool) {
	g := newGramIndex(x.text)
	if unguarded {
		g.maxCandidates, g.maxCompared = math.MaxInt, math.MaxInt
	}
	x.Searcher().index = g
}

// Counted reports whether pattern was counted beforehand (CountAll).
func (s *Searcher) Counted(pattern string) bool {
	_, ok := s.counted[pattern]
	return ok
}
