package annotation

import (
	"bytes"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// A string the checks do not use (a body's value, a creator's name, a
// member nobody reads) is skipped without being held: the JSON decoder
// reads a string as one token, so it would grow its buffer to hold the
// whole string (a 40 MiB body, 40 MiB and more). Instead, once the
// scanner says the next value is such a string, the tee validates its
// insides itself as they stream past and passes the decoder only what it
// had already buffered and the closing quote; shift counts the bytes left
// out, so that every offset stays the input's.
//
// Only what is certainly valid inside a JSON string is left out: printable
// ASCII other than '"' and '\', whole UTF-8 sequences that decode, and
// whole escapes (\uXXXX of a surrogate only as a high-low pair). At the
// first byte of anything else (a control character, a byte that is not
// UTF-8, a lone surrogate escape, the input's end), skipping stops and
// every byte from there on is passed to the decoder, which then judges
// the string and reports its error exactly as it would have. The decoder
// so sees a string made of whole units of the input's, valid just when
// the input's is.
//
// Cost: linear in the string, one pass; memory, the tee's read buffer
// (skipChunk bytes) and at most one unit carried between reads.
type stringSkip struct {
	on bool
	// head is the start of a unit the decoder had already buffered when
	// skipping began: the rest of that unit is passed, not left out.
	head []byte
	// raw counts bytes still to pass before leaving bytes out again (the
	// rest of head's unit).
	raw     int
	scratch []byte
	num     numberSkip // when the value skipped is a number
}

// numberSkip is the state of a number being skipped. A long number is one
// token to the decoder as a string is, so its digits are left out as a
// string's insides are: a digit is left out when the digit before it was
// passed and the byte after it is a digit too, so that each run of digits
// keeps its first and last digit and the number keeps its shape (a
// fraction or exponent its digits, an integer part its first). A run in
// the integer part that starts with 0 is passed whole: the decoder
// refuses it at the byte it would have refused it at.
type numberSkip struct {
	on        bool
	inInt     bool // no '.', 'e' or 'E' yet
	lastDigit bool // the last byte passed is a digit
	keepRun   bool // the digits of this run are all passed (a leading zero)
}

// numberByte reports whether c may stand in a JSON number.
func numberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// step advances the number's state past c, a byte passed.
func (n *numberSkip) step(c byte) {
	digit := c >= '0' && c <= '9'
	switch {
	case digit && !n.lastDigit:
		n.keepRun = n.inInt && c == '0'
	case c == '.' || c == 'e' || c == 'E':
		n.inInt = false
	}
	n.lastDigit = digit
}

// skipChunk is how much the tee reads at a time while skipping.
const skipChunk = 32 << 10

// longestUnit is the longest unit leaving out considers whole: an escaped
// surrogate pair, \uD83D\uDE00.
const longestUnit = 12

// skipString is dec.SkipValue for a value the checks do not use, whose
// insides, when it is a string, are not held (see stringSkip).
func skipString(dec *jsontext.Decoder, t *tee) error {
	switch dec.PeekKind() {
	case '"':
		if !t.keepStrings {
			t.skipFrom(dec.UnreadBuffer())
		}
	case '0':
		if !t.keepStrings {
			t.skipNumberFrom(dec.UnreadBuffer())
		}
	}
	err := dec.SkipValue()
	t.skip = stringSkip{scratch: t.skip.scratch}
	return err
}

// skipFrom starts skipping the string that opens the decoder's unread
// buffer (after white space and the ':' or ',' before it, which the
// decoder has peeked past but not read): unless it is already whole in
// the buffer, or what is buffered of it is not certainly valid.
func (t *tee) skipFrom(unread []byte) {
	i := 0
	space := func() {
		for i < len(unread) && (unread[i] == ' ' || unread[i] == '\t' || unread[i] == '\n' || unread[i] == '\r') {
			i++
		}
	}
	if space(); i < len(unread) && (unread[i] == ':' || unread[i] == ',') {
		i++
		space()
	}
	if i == len(unread) || unread[i] != '"' {
		return
	}
	for i++; i < len(unread); {
		n, k := unit(unread[i:], false)
		switch k {
		case unitPlain:
			i += n
			continue
		case unitIncomplete:
			t.skip = stringSkip{on: true, head: append(t.skip.head[:0], unread[i:]...), scratch: t.skip.scratch}
			return
		}
		return // the end of the string, or a unit the decoder is to judge
	}
	t.skip = stringSkip{on: true, scratch: t.skip.scratch}
}

// skipNumberFrom starts skipping the number that opens the decoder's
// unread buffer (after white space and a ':' or ','), unless it is whole
// there: its state is that of the bytes buffered.
func (t *tee) skipNumberFrom(unread []byte) {
	i := 0
	for i < len(unread) && (unread[i] == ' ' || unread[i] == '\t' || unread[i] == '\n' || unread[i] == '\r' || unread[i] == ':' || unread[i] == ',') {
		i++
	}
	n := numberSkip{on: true, inInt: true}
	for ; i < len(unread); i++ {
		if !numberByte(unread[i]) {
			return // whole in the buffer
		}
		n.step(unread[i])
	}
	t.skip = stringSkip{on: true, scratch: t.skip.scratch, num: n}
}

// passNumber is pass while a number is skipped.
func (t *tee) passNumber(p []byte) int {
	out := 0
	n := &t.skip.num
	for out < len(p) && len(t.pending) > 0 {
		c := t.pending[0]
		if !numberByte(c) {
			t.skip.on = false // the number's end: the rest is the decoder's
			return out + t.pass(p[out:])
		}
		digit := c >= '0' && c <= '9'
		if digit && n.lastDigit && !n.keepRun {
			if len(t.pending) < 2 && !t.eof {
				return out // is the next byte a digit?
			}
			if len(t.pending) >= 2 && t.pending[1] >= '0' && t.pending[1] <= '9' {
				t.pending = t.pending[1:]
				t.shift++
				continue
			}
		}
		p[out] = c
		out++
		t.pending = t.pending[1:]
		n.step(c)
	}
	return out
}

// readSkipping is Read while a string is being skipped, or while bytes
// read before are pending.
func (t *tee) readSkipping(p []byte) (int, error) {
	for {
		if n := t.pass(p); n > 0 {
			m := t.mend(p[:n], t.passed+t.shift, t.eof && len(t.pending) == 0)
			if m < n { // an escape cut by the end of what was read
				t.pending = append(append(make([]byte, 0, n-m+len(t.pending)), p[m:n]...), t.pending...)
			}
			if m > 0 {
				t.newlines += int64(bytes.Count(p[:m], []byte{'\n'}))
				t.passed += int64(m)
				return m, nil
			}
		}
		switch {
		case t.err != nil:
			return 0, t.err
		case t.eof && len(t.pending) == 0:
			return 0, io.EOF
		case t.eof: // a unit cut by the end: the decoder says so
			t.skip.on = false
			continue
		}
		// Read on after what is pending (at most a unit's bytes).
		if cap(t.skip.scratch) == 0 {
			t.skip.scratch = make([]byte, skipChunk)
		}
		k := copy(t.skip.scratch, t.pending)
		m, err := t.r.Read(t.skip.scratch[k:])
		t.keep(t.skip.scratch[k : k+m])
		t.pending = t.skip.scratch[:k+m]
		switch {
		case err == io.EOF:
			t.eof = true
		case err != nil:
			t.err = err
		}
	}
}

// pass moves pending bytes to p, leaving out the plain insides of the
// string being skipped, and returns how many it moved.
func (t *tee) pass(p []byte) int {
	if t.skip.on && t.skip.num.on {
		return t.passNumber(p)
	}
	out := 0
	for out < len(p) && len(t.pending) > 0 {
		sk := &t.skip
		switch {
		case !sk.on:
			n := copy(p[out:], t.pending)
			t.pending = t.pending[n:]
			return out + n
		case sk.raw > 0:
			n := copy(p[out:], t.pending[:min(sk.raw, len(t.pending))])
			t.pending, sk.raw, out = t.pending[n:], sk.raw-n, out+n
			continue
		case len(sk.head) > 0:
			// The unit the decoder holds the start of: its rest is passed.
			var b [2 * longestUnit]byte
			joined := append(append(b[:0], sk.head...), t.pending[:min(len(t.pending), longestUnit)]...)
			n, k := unit(joined, t.eof)
			switch k {
			case unitIncomplete:
				if len(joined) == len(sk.head)+len(t.pending) {
					return out // wait for more
				}
				sk.on = false // longer than any unit: cannot be one
			case unitPlain:
				sk.raw = n - len(sk.head)
			default:
				sk.on = false
			}
			sk.head = sk.head[:0]
			continue
		}
		n, k := unit(t.pending, t.eof)
		switch k {
		case unitIncomplete:
			return out // wait for more
		case unitLone:
			t.noteLone(t.passed + int64(out) + t.shift)
			fallthrough
		case unitPlain:
			t.pending = t.pending[n:]
			t.shift += int64(n)
		case unitEnd:
			p[out] = '"'
			t.pending, out = t.pending[1:], out+1
			sk.on = false
		default:
			sk.on = false
		}
	}
	return out
}

type unitKind uint8

const (
	unitPlain      unitKind = iota // certainly valid inside a string
	unitEnd                        // the closing quote
	unitOther                      // anything else: for the decoder to judge
	unitLone                       // a lone surrogate's escape (see loneEscapes)
	unitIncomplete                 // b ends before the unit does
)

// unit reads the unit of a string's insides b starts with: its length and
// kind. At the input's end (eof), a cut unit is unitOther.
func unit(b []byte, eof bool) (int, unitKind) {
	incomplete := unitIncomplete
	if eof {
		incomplete = unitOther
	}
	c := b[0]
	switch {
	case c == '"':
		return 1, unitEnd
	case c >= 0x20 && c < utf8.RuneSelf && c != '\\':
		return 1, unitPlain
	case c >= utf8.RuneSelf:
		if !utf8.FullRune(b) {
			return 0, incomplete
		}
		if r, n := utf8.DecodeRune(b); r != utf8.RuneError || n == 3 {
			return n, unitPlain
		}
		return 0, unitOther
	case c != '\\':
		return 0, unitOther
	}
	if len(b) < 2 {
		return 0, incomplete
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, unitPlain
	case 'u':
	default:
		return 0, unitOther
	}
	r, ok := hex4(b[2:])
	switch {
	case !ok && len(b) < 6:
		return 0, incomplete
	case !ok:
		return 0, unitOther
	case r < 0xD800 || r > 0xDFFF:
		return 6, unitPlain
	case r > 0xDBFF: // a low surrogate first
		return 6, unitLone
	}
	if len(b) < longestUnit && !eof && couldBeLow(b[6:]) {
		return 0, unitIncomplete
	}
	if len(b) >= longestUnit && b[6] == '\\' && b[7] == 'u' {
		if lo, ok := hex4(b[8:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			return longestUnit, unitPlain
		}
	}
	return 6, unitLone
}

// couldBeLow tells whether b is the start of the escape of a low
// surrogate, \uDC00 to \uDFFF.
func couldBeLow(b []byte) bool {
	for i, c := range b[:min(len(b), 6)] {
		var ok bool
		switch i {
		case 0:
			ok = c == '\\'
		case 1:
			ok = c == 'u'
		case 2:
			ok = c == 'd' || c == 'D'
		case 3:
			ok = c >= 'c' && c <= 'f' || c >= 'C' && c <= 'F'
		default:
			_, ok = hex4([]byte{c, '0', '0', '0'})
		}
		if !ok {
			return false
		}
	}
	return true
}

// hex4 reads four hexadecimal digits; false when b is shorter or they are
// not.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
