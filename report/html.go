package report

import "github.com/citecheck/citecheck"

// The HTML report (`--format html` of quotes, annotations and run; the
// tool page's report view): one self-contained page a person reads, each
// checked item marked by its outcome, with the source passage beside it.
// The adapters (quotes, annotation, cmd/citecheck's run) build a Page
// from their results; this file renders it. Nothing in a Page is trusted:
// every string is text and is written escaped (docs/report-html.md).

// Page is one HTML report.
type Page struct {
	// Title names what was checked: "citecheck quotes: draft.md".
	Title string
	// Kind is "quotes", "annotations" or "run": what the items are.
	Kind string
	// Document is the text the items stand in (a report whose quotations
	// are checked), shown with each item's range marked; nil when the
	// items have no such text (a structured answer, an annotation export,
	// a request).
	Document *Document
	// Items are what was checked, in the order of the command's JSON
	// lines.
	Items []Item
	// Outcomes are the outcomes the summary counts, in the order it lists
	// them (the kind's closed enum, each with its tone); an outcome no item
	// has is counted 0.
	Outcomes []Outcome
}

// Outcome is an outcome the summary counts: its name (an item's Outcome)
// and its tone.
type Outcome struct {
	Name string
	Tone Tone
}

// Tone is how the page shows an outcome: a colour of the Okabe–Ito
// palette, which stays apart under every common colour blindness, and a
// symbol, so that nothing is said by colour alone. Each adapter gives
// its own closed enum's tones (quotes/html.go, annotation/html.go,
// RunOutcomes); the zero Tone is a failure.
type Tone uint8

const (
	ToneFail       Tone = iota // vermillion #D55E00, ✗: the text is not there
	ToneNear                   // orange #E69F00, ≈: close, moved, elsewhere or ambiguous
	ToneNotChecked             // grey, –: nothing to check it against
	TonePass                   // blue #0072B2, ✓
	toneCount
)

// ErrorOutcome is the outcome of an item refused before it was checked
// (a request of a --jsonl run, an item of an export that is not an
// annotation): the JSON line's "error".
var ErrorOutcome = Outcome{Name: "error", Tone: ToneNotChecked}

// Document is a text the items are quoted from.
type Document struct {
	Name string // its name: a file's, "text", "-" for standard input
	Text string
}

// Item is one checked quotation, annotation or citation.
type Item struct {
	// ID is the element's id in the page, unique within it: "q0", "a3",
	// "r0c2".
	ID string
	// Head says where the item is: "quotation 2, line 14, column 3".
	Head string
	// Outcome is the JSON line's outcome (quotes, annotations) or, for a
	// citation of run, "valid" or its reason: the element's data-outcome.
	// Its tone is its entry's in Page.Outcomes (ToneFail when it has
	// none): an item of TonePass is a pass, every other a failure the page
	// counts and navigates between.
	Outcome string
	// Text is what the item claims: the quotation, the annotation's exact
	// text, the citation's quote.
	Text string
	// Source is the id of the source the outcome names, "" for none.
	Source string
	// Range is where the item stands in Page.Document, in bytes
	// [Start, End); nil when there is no document.
	Range *ByteRange
	// Why is the outcome in words.
	Why string
	// Passages are the places of the source the item is shown against:
	// for a pass, its match; for a failure, the nearest reading explain
	// finds (and the exact occurrence elsewhere, when there is one).
	Passages []Passage
	// Fix is the fix in words, "" for none.
	Fix string
	// Error is a refused item's error message (annotations' "error"
	// outcome, a request run refused), "" otherwise.
	Error string
}

// ByteRange is [Start, End) in bytes of a text.
type ByteRange struct{ Start, End int }

// Passage is a place in a source, with the text around it.
type Passage struct {
	// Label says what the place is: "match", "nearest reading",
	// "found elsewhere", "cited span".
	Label string
	// Before, Text and After are the source before the place, at it, and
	// after it, each already cut by the adapter (NewPassage: ExcerptContext
	// code points of context at most) so that a page never holds a whole
	// source.
	Before, Text, After string
	// Omitted is how many code points of a place over passageMax are
	// left out between Text (its first passageMax/2) and Rest (its last),
	// as NewPassage cuts it; 0 when Text is the whole place. A cut place
	// is never compared.
	Omitted int
	Rest    string
	// Start and End are the place in the source, in code points.
	Start, End int
	// Compare: the page marks, character by character, where Text differs
	// from the item's Text (a near quotation against its nearest reading).
	Compare bool
}

// ExcerptContext is the most code points of a source a Passage holds on
// each side of its place.
const ExcerptContext = 160

// NewPassage is the passage of t at [start, end) (code points, clamped to
// t), labelled label, with at most ExcerptContext code points on each
// side, and the place itself cut to its ends when it is over passageMax
// (see Passage.Omitted). Cost: O(1) index lookups in t, and the place's
// length to count its code points.
func NewPassage(label string, t *citecheck.Text, start, end int, compare bool) Passage {
	n := t.Len()
	start, end = max(0, min(start, n)), max(0, min(end, n))
	end = max(start, end)
	s := t.String()
	from, a, b, to := t.ByteOffset(max(0, start-ExcerptContext)), t.ByteOffset(start), t.ByteOffset(end), t.ByteOffset(min(n, end+ExcerptContext))
	head, omitted, tail := cutMiddle(s[a:b], passageMax)
	return Passage{Label: label, Before: s[from:a], Text: head, Omitted: omitted, Rest: tail, After: s[b:to],
		Start: start, End: end, Compare: compare && omitted == 0}
}
