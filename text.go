package citecheck

import (
	"github.com/citecheck/citecheck/internal/search"
	"github.com/citecheck/citecheck/internal/utext"
)

// indexedText is one source's text as the check reads it: its code point
// offsets (utext.Index) and what its searches learn about it
// (search.Text), both built once per Checker.
type indexedText struct {
	utext.Index
	*search.Text
}

func newIndexedText(s string, plan search.Plan) *indexedText {
	return &indexedText{Index: utext.New(s), Text: search.NewText(s, plan)}
}

// Text is a source text indexed for code point positions, for callers that
// show or cut a text where the engine reports positions (the text report
// does). Building it is linear in the text; each conversion costs
// O(log(len/64) + 64).
type Text struct{ x utext.Index }

// NewText indexes s, which must be valid UTF-8 (as every decoded text is).
func NewText(s string) *Text { return &Text{utext.New(s)} }

// String returns the text.
func (t *Text) String() string { return t.x.String() }

// Len returns the text's length in code points.
func (t *Text) Len() int { return t.x.Len() }

// ByteOffset returns the byte offset of code point index cp, clamped to
// [0, Len()].
func (t *Text) ByteOffset(cp int) int { return t.x.ByteAt(max(0, min(cp, t.x.Len()))) }
