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
	if r.Err != nil {
		return nil, r.Outcome
	}
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
// and formatting included, is as it was. Linear in Raw. Raw must have been
// kept (the scanner was rewriting): nil otherwise.
func (a *Annotation) Rewrite(repairs []Repair) []byte {
	if a.Raw == nil {
		return nil
	}
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

// RewriteChecked is Rewrite, read back: the rewritten "target" member
// (every edit is within it; the bytes around it are the input's, already
// read) is parsed as the scanner parses, and each repaired target must
// hold the repair in every position selector, every other target as it
// was. An error (never expected: the rewrite is exact) means the bytes
// must not be written. Cost: linear in Raw; memory, the rewrite and the
// re-read of its target member, not of the members around it.
func (a *Annotation) RewriteChecked(repairs []Repair) ([]byte, error) {
	out := a.Rewrite(repairs)
	if out == nil {
		return nil, fmt.Errorf("annotation %s: its bytes were not kept", where(a.Pointer))
	}
	end := a.targetEnd + len(out) - len(a.Raw)
	target := append(append([]byte(`{"target"`), out[a.targetAt:end]...), '}')
	b, e := parse(target, a.Pointer)
	if e != nil {
		return nil, fmt.Errorf("annotation %s: its rewrite does not read back: %s", where(a.Pointer), e.Message)
	}
	if len(b.Targets) != len(a.Targets) {
		return nil, fmt.Errorf("annotation %s: its rewrite has %d targets, not %d", where(a.Pointer), len(b.Targets), len(a.Targets))
	}
	want := slices.Clone(a.Targets)
	for _, r := range repairs {
		want[r.Target] = a.Targets[r.Target].repaired(r)
	}
	for j := range want {
		if !samePositions(want[j].Selectors, b.Targets[j].Selectors) {
			return nil, fmt.Errorf("annotation %s: its rewrite of %s does not read back as the repair", where(a.Pointer), want[j].Pointer)
		}
	}
	return out, nil
}

func samePositions(x, y []Selector) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i].Type != y[i].Type || x[i].Start != y[i].Start || x[i].End != y[i].End || x[i].Exact != y[i].Exact {
			return false
		}
	}
	return true
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
