package annotation

import (
	"strconv"

	"github.com/citecheck/citecheck"
)

// A string escape of a lone surrogate ("\ud800" with no low surrogate
// after it, or a low one alone) is valid JSON (RFC 8259 §7 allows it) but
// not Unicode text, which I-JSON (RFC 7493 §2.1) and the engine require.
// The JSON decoder refuses it as a syntax error, which it cannot go on
// from: one such escape, even in a member nobody reads, would end the
// run. So the tee mends every lone escape it passes to the decoder into
// \uFFFD (the same six bytes' length: every offset stays the input's)
// and notes where it was; the scanner makes the annotation whose bytes
// hold it an error item (object), as it does a member named twice, and
// reads on. A skipped string's lone escapes are left out with its other
// insides, and noted alike (stringSkip).
//
// Only the first lone escape of each string is noted, and the notes are
// drained as the scanner reads past them, so they hold at most one offset
// per string in the decoder's read-ahead. Cost: one pass over the bytes
// passed, looking at most longestUnit bytes ahead.
type loneEscapes struct {
	inString bool // the bytes passed so far end inside a string
	noted    bool // this string's first lone escape is noted
	// carry counts the bytes at the start of the next bytes passed that
	// belong to an escape already judged (it began before their start).
	carry int
	at    []int64 // input offsets of noted escapes not yet drained, ascending
	first int64   // the first offset drained since the last take; -1 for none
}

// noteLone notes a lone escape at input offset off, unless its string's
// first is noted already.
func (t *tee) noteLone(off int64) {
	if t.lone.noted {
		return
	}
	t.lone.noted = true
	t.lone.at = append(t.lone.at, off)
}

// drain lets go of the notes before input offset upto, remembering the
// first of them for take.
func (t *tee) drain(upto int64) {
	l := &t.lone
	i := 0
	for i < len(l.at) && l.at[i] < upto {
		if l.first < 0 {
			l.first = l.at[i]
		}
		i++
	}
	if i == len(l.at) {
		l.at = l.at[:0]
	} else if i > 0 {
		l.at = l.at[i:]
	}
}

// take returns the first offset drained since the last take (-1 for
// none) and forgets it.
func (t *tee) take() int64 {
	f := t.lone.first
	t.lone.first = -1
	return f
}

// mend judges the escapes in b, the next bytes passed to the decoder (at
// input offset base), and mends the lone ones (see loneEscapes). t.pending
// holds the bytes after b, looked at (and mended) when an escape runs on
// past b. It returns how many of b's bytes may be passed now: all, unless
// b ends in an escape it cannot judge yet (not at the input's end), whose
// bytes are to be passed again with those that follow.
func (t *tee) mend(b []byte, base int64, eof bool) int {
	l := &t.lone
	i := min(l.carry, len(b))
	l.carry -= i
	for i < len(b) {
		c := b[i]
		if !l.inString {
			if c == '"' {
				l.inString, l.noted = true, false
			}
			i++
			continue
		}
		if c == '"' {
			l.inString = false
		}
		if c != '\\' {
			i++
			continue
		}
		var look [longestUnit]byte
		w := copy(look[:], b[i:])
		w += copy(look[w:], t.pending)
		n, k := unit(look[:w], eof && w-(len(b)-i) == len(t.pending))
		switch k {
		case unitIncomplete:
			return i
		case unitLone:
			const mended = `\uFFFD`
			for j := range len(mended) {
				if at := i + j; at < len(b) {
					b[at] = mended[j]
				} else {
					t.pending[at-len(b)] = mended[j]
				}
			}
			t.noteLone(base + int64(i))
		case unitOther:
			n = 1 // the decoder refuses it; judge on from the next byte
		}
		if i+n > len(b) {
			l.carry = i + n - len(b)
			return len(b)
		}
		i += n
	}
	return len(b)
}

// loneSurrogate is the refusal of an annotation whose member at ptr holds
// a lone surrogate escape at input offset at.
func loneSurrogate(ptr string, at int64) *citecheck.Error {
	return invalid(ptr, where(ptr)+": a string holds a lone surrogate escape (at byte "+strconv.FormatInt(at, 10)+"), which is not Unicode text (I-JSON, RFC 7493 §2.1)")
}
