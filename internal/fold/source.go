package fold

import (
	"sort"
	"unsafe"
)

// NewFolder returns a folder of the folds f, its output sized for
// capacity bytes.
func NewFolder(f Set, capacity int) *Folder {
	return &Folder{folds: f, out: make([]byte, 0, capacity)}
}

// Written returns what the folder has written so far, a view of its
// buffer valid until it writes more: final, since what a folder has
// written does not change.
func (w *Folder) Written() string { return unsafe.String(unsafe.SliceData(w.out), len(w.out)) }

// Source is a text read under every fold, with checkpoints for mapping a
// span of the reading back to the text's code points: the map for the
// whole text would cost 8 bytes a byte, more than the folding, and most
// claims a caller looks for are found under no fold. Folding is linear in
// the text; a checkpoint costs a sixth of a byte per byte of it.
type Source struct {
	text        string
	folded      string
	checkpoints []foldCheckpoint // the first at the start
}

// NewSource folds text under every fold.
func NewSource(text string) *Source {
	s := &Source{text: text}
	w := &Folder{folds: All, out: make([]byte, 0, len(text)), checkpoints: &s.checkpoints}
	*w.checkpoints = append(*w.checkpoints, foldCheckpoint{})
	w.Fold(text)
	s.folded = w.Done()
	return s
}

// Folded returns the text read under every fold.
func (s *Source) Folded() string { return s.folded }

// Same reports whether the folded reading is the text as it is.
func (s *Source) Same() bool { return s.folded == s.text }

// Span returns the code points [from, to) of the text that read as the
// folded reading's bytes [b, e), b < e: those of its first and last byte.
// O(checkpointEvery) whatever the span's length: it folds again, with the
// map, about SpanBytes of the text (more only where a run of white space
// reaches back past a checkpoint, once per run).
func (s *Source) Span(b, e int) (from, to int) {
	from, _ = s.codePoints(b)
	_, to = s.codePoints(e - 1)
	return from, to
}

// SpanBytes is about how many bytes of the text Span folds again, with
// the map, for its two ends: from the checkpoint before each, and a piece.
const SpanBytes = 2 * (checkpointEvery + foldPieceBytes)

// codePoints returns the code points [from, to) of the text that byte b
// of the folded reading reads: the folding with the map, restarted at the
// last checkpoint before b and run until it has written b.
func (s *Source) codePoints(b int) (from, to int) {
	k := sort.Search(len(s.checkpoints), func(k int) bool { return s.checkpoints[k].out > b }) - 1
	c := s.checkpoints[k]
	room := b - c.out + 2*foldPieceBytes // what the restart writes, unless a piece expands
	w := &Folder{folds: All, mapping: true, foldState: c.foldState,
		out: make([]byte, 0, room), from: make([]int32, 0, room), to: make([]int32, 0, room)}
	for i := c.in; len(w.out) <= b-c.out && i < len(s.text); {
		i = w.Piece(s.text, i)
	}
	return int(w.from[b-c.out]), int(w.to[b-c.out])
}

// ASCII returns what every fold at once reads each ASCII byte as (white
// space as ' '), a row of 256 so that indexing by a byte needs no bounds
// check.
func ASCII() *[256]byte { return &asciiFolded()[All] }

// Sharing returns a skeletonizer that shares k's cache of code points'
// skeletons, for the claims on the text k skeletonized.
func (k *Skeletonizer) Sharing() *Skeletonizer { return &Skeletonizer{cache: k.cache} }
