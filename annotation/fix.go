package annotation

import (
	"fmt"
	"io"
	"slices"
	"strconv"
)

// Repair is a corrected position for one target's text: the code point
// span [Start, End) where its quote anchors.
type Repair struct {
	Target     int // index in Annotation.Targets
	Start, End int
}

// Repairs returns the report's repairs, nil when there are none, and the
// outcome the annotation has once they are applied: a repaired target
// anchors (its position now says where its unique quote is).
func (r *Report) Repairs() ([]Repair, Outcome) {
	var repairs []Repair
	for j, t := range r.Targets {
		if t.Repair != nil {
			rp := *t.Repair
			rp.Target = j
			repairs = append(repairs, rp)
		}
	}
	return repairs, r.worst(true)
}

// edit replaces Raw[at:end] with text.
type edit struct {
	at, end int
	text    string
}

// Rewrite returns the annotation's bytes with the repairs applied: each
// TextPositionSelector of a repaired target gets the new start and end; a
// target without one gets one added at the end of its selector list (a
// single selector becomes a list of two). Every other byte, member order
// and formatting included, is as it was. Linear in Raw.
func (a *Annotation) Rewrite(repairs []Repair) []byte {
	var edits []edit
	for _, r := range repairs {
		t := &a.Targets[r.Target]
		start, end := strconv.Itoa(r.Start), strconv.Itoa(r.End)
		positioned := false
		for i := range t.Selectors {
			s := &t.Selectors[i]
			if s.Type == TextPosition {
				positioned = true
				edits = append(edits, edit{s.startAt, s.startEnd, start}, edit{s.endAt, s.endEnd, end})
			}
		}
		if positioned || t.selectorEnd == 0 {
			continue
		}
		added := fmt.Sprintf(`,{"type":%q,"start":%d,"end":%d}`, TextPosition, r.Start, r.End)
		switch n := len(t.Selectors); {
		case t.selectorArray && n == 0:
			edits = append(edits, edit{t.selectorEnd - 1, t.selectorEnd - 1, added[1:]})
		case t.selectorArray: // right after the last selector, before any white space
			last := t.Selectors[n-1].end
			edits = append(edits, edit{last, last, added})
		default:
			open := t.Selectors[0].at
			edits = append(edits, edit{open, open, "["}, edit{t.selectorEnd, t.selectorEnd, added + "]"})
		}
	}
	slices.SortStableFunc(edits, func(x, y edit) int { return x.at - y.at })
	out := make([]byte, 0, len(a.Raw)+32*len(edits))
	from := 0
	for _, e := range edits {
		out = append(append(out, a.Raw[from:e.at]...), e.text...)
		from = e.end
	}
	return append(out, a.Raw[from:]...)
}

// Rewriting makes the scanner keep every byte until it is copied out with
// CopyThrough, Replace or Finish: call it before Scan to write the input
// back with some annotations replaced. Memory then holds the bytes from
// the last one copied out to the decoder's position.
func (s *Scanner) Rewriting() { s.tee.copyAt = 0 }

// CopyThrough writes the input from where the last copy stopped through
// the end of annotation a, unchanged.
func (s *Scanner) CopyThrough(w io.Writer, a *Annotation) error {
	return s.copyTo(w, a.Offset+int64(len(a.Raw)))
}

// Replace writes the input from where the last copy stopped up to
// annotation a, then b in a's place.
func (s *Scanner) Replace(w io.Writer, a *Annotation, b []byte) error {
	if err := s.copyTo(w, a.Offset); err != nil {
		return err
	}
	s.tee.copyAt = a.Offset + int64(len(a.Raw))
	_, err := w.Write(b)
	return err
}

// Finish writes the rest of the input, once Scan has returned nil.
func (s *Scanner) Finish(w io.Writer) error {
	return s.copyTo(w, s.tee.base+int64(len(s.tee.buf)))
}

func (s *Scanner) copyTo(w io.Writer, off int64) error {
	if s.tee.copyAt < 0 {
		return fmt.Errorf("annotation: copying out without Rewriting")
	}
	_, err := w.Write(s.tee.bytes(s.tee.copyAt, off))
	s.tee.copyAt = off
	s.tee.release(off)
	return err
}
