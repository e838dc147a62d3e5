package citecheck

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/citecheck/citecheck/internal/jsonenc"
)

// scanner reads one JSON text held whole in memory, token by token, with the
// strictness of RFC 8259 and I-JSON (spec §1 step 2): UTF-8 only, no lone
// surrogate escape, no duplicate member name (compared unescaped), white
// space only space, tab, LF and CR.
//
// Its failures are, to the byte, those of go-json-experiment/json's
// jsontext.Decoder reading the same body through a bytes.Buffer, which the
// previous decoder used: the same message, the same offset and, for a
// duplicate name or a bad surrogate, the same JSON Pointer. Its token API
// (peekKind, readToken, readString, readNumber, inputOffset, depth) mirrors
// the Decoder's PeekKind, ReadToken, ReadValue, InputOffset and StackDepth,
// so that the request walk in decode.go asks the same questions in the same
// order and gets the same answers. FuzzDecodeAgainstReference holds the two
// to it.
//
// Unlike jsontext, which validates a string and then unescapes it rune by
// rune into a buffer of its own, it validates each string in one pass
// (asciiRun: thirty-two ASCII bytes per step; plainRun: one multi-byte
// code point per step) and writes it once, decoded, into the memory the
// Request keeps (strStore): a string without escapes copied after that
// pass, one with an escape written in it (decodeFrom).
type scanner struct {
	buf []byte

	prevEnd    int     // input offset just after the last token read
	peeked     bool    // peekKind has looked ahead and cached what it found
	peekPos    int     // where the peeked token starts
	peekedKind kind    // the peeked token's kind
	peekErr    *synErr // or the failure found in its place

	// The token state machine of jsontext: a virtual top-level array, then
	// one entry per open object or array, counting the tokens (names and
	// values) read in it.
	stack []entry
	last  entry

	// One frame per open object, for duplicate names and for pointers;
	// top is the innermost's.
	objs []nameFrame
	nobj int
	top  *nameFrame

	// wide is set by a string with a byte above ASCII or a \uXXXX escape
	// of a code point above it (and only cleared by the caller): one
	// without either decodes to ASCII, whose length in UTF-16 code units
	// is its length in bytes.
	wide bool

	// st keeps the Request's strings. scanString writes a string with an
	// escape, decoded, just past the end of its chunk (st.pending), where
	// keep takes it without a copy.
	st strStore
}

// kind is a token's first byte, normalised as jsontext does: every number
// is '0'; 0 is invalid.
type kind byte

var normKind = [256]kind{
	'n': 'n', 'f': 'f', 't': 't', '"': '"', '{': '{', '}': '}', '[': '[', ']': ']',
	'-': '0', '0': '0', '1': '0', '2': '0', '3': '0', '4': '0', '5': '0', '6': '0', '7': '0', '8': '0', '9': '0',
}

// maxDepth is jsontext's maxNestingDepth: the open objects and arrays a
// body may nest.
const maxDepth = 10000

// entry is a state machine entry: the top bit says object, the rest counts
// the tokens read in it.
type entry uint64

const objectEntry entry = 1 << 63

func (e entry) isObject() bool  { return e&objectEntry != 0 }
func (e entry) length() int64   { return int64(e &^ objectEntry) }
func (e entry) needName() bool  { return e.isObject() && e&1 == 0 }
func (e entry) needValue() bool { return e.isObject() && e&1 == 1 }

// needDelim is the delimiter that must come before a token of kind next.
func (s *scanner) needDelim(next kind) byte {
	switch {
	case s.last.needValue():
		return ':'
	case s.last.length() > 0 && next != '}' && next != ']' && len(s.stack) != 0:
		return ','
	}
	return 0
}

// nameFrame is what the scanner knows of one open object: its names so far
// (to refuse a second of any) and where the last of them starts (for
// pointers, which read it again: they are built only for a failure).
//
// An object the request walk knows (the body, a source, a citation, a
// selector) has the set of its members' names: a name of the set is
// remembered as one bit of seen, any other in names.
type nameFrame struct {
	members *memberSet
	seen    uint64
	names   [][]byte
	set     map[string]struct{} // all other names, once there are too many to compare one by one
	lastPos int                 // the offset of the last name's opening quote, or -1
}

// memberSet is the member names of one kind of object, each identified by
// its index. A name closed within sixteen bytes is found by its length and
// its bytes as two words: one or two word compares, no call.
type memberSet struct {
	names []string
	first [32]int8 // by length, the first index of a name that long, or -1
	next  [64]int8 // the next index of a name as long, or -1
	words [64][2]uint64
}

func newMemberSet(names ...string) *memberSet {
	t := &memberSet{names: names}
	for i := range t.first {
		t.first[i] = -1
	}
	for i := len(names) - 1; i >= 0; i-- { // so that each list runs in index order
		n := names[i]
		if len(n) > 16 || i >= 64 {
			panic("memberSet: a name longer than 16 bytes, or more than 64 names")
		}
		var w [16]byte
		copy(w[:], n)
		t.words[i] = [2]uint64{binary.LittleEndian.Uint64(w[:]), binary.LittleEndian.Uint64(w[8:])}
		t.next[i], t.first[len(n)] = t.first[len(n)], int8(i)
	}
	return t
}

// find is the index of the name of length n (at most 16) whose bytes,
// zero-padded, are the words w0 and w1; or -1, as for a nil set.
func (t *memberSet) find(n int, w0, w1 uint64) int {
	if t == nil {
		return -1
	}
	for i := int(t.first[n&31]); i >= 0; i = int(t.next[i&63]) {
		if t.words[i&63][0] == w0 && t.words[i&63][1] == w1 {
			return i
		}
	}
	return -1
}

// index is the index of name, or -1.
func (t *memberSet) index(name []byte) int {
	if len(name) > 16 {
		return -1
	}
	var w [16]byte
	copy(w[:], name)
	return t.find(len(name), binary.LittleEndian.Uint64(w[:]), binary.LittleEndian.Uint64(w[8:]))
}

// synErr is an I-JSON (syntax) failure. rawEOF is the body ending where a
// top-level value should start (jsontext's bare io.EOF); otherwise msg is
// what jsontext's error says, off the byte offset, and ptr the pointer it
// gives.
type synErr struct {
	rawEOF bool
	msg    string
	offset int
	ptr    string
	dup    bool
}

const msgUnexpectedEOF = "unexpected EOF" // io.ErrUnexpectedEOF's text

func (s *scanner) fail(msg string, offset, where int) *synErr {
	return &synErr{msg: msg, offset: offset, ptr: s.pointer(where)}
}

func (s *scanner) eofAt(offset, where int) *synErr { return s.fail(msgUnexpectedEOF, offset, where) }

func (s *scanner) skipWS(pos int) int {
	if pos < len(s.buf) && s.buf[pos] > ' ' { // compact JSON: no white space at all
		return pos
	}
	for pos < len(s.buf) {
		switch s.buf[pos] {
		case ' ', '\t', '\n', '\r':
			pos++
			continue
		}
		break
	}
	return pos
}

// peek finds the next token, after white space and the delimiter it
// needs, and caches its position and kind (or the failure in its place) for
// peekKind and take. It writes the cache itself, rather than returning three
// results for its callers to store, so that peekKind stays small enough to
// be inlined.
func (s *scanner) peek() {
	s.peeked = true
	// Compact JSON first, as encoders send it: the delimiter the token
	// needs, if any, then the token. Anything else (white space, a
	// failure, the end of the body) takes next, the general path.
	if p := s.prevEnd; p+1 < len(s.buf) {
		var delim byte
		if c := s.buf[p]; c == ':' || c == ',' {
			delim = c
			p++
		}
		if k := normKind[s.buf[p]]; k != 0 && s.needDelim(k) == delim {
			s.peekPos, s.peekedKind, s.peekErr = p, k, nil
			return
		}
	}
	s.peekPos, s.peekedKind, s.peekErr = s.next()
}

// next finds the next token: its position and kind, after white space and
// the delimiter it needs. It reads any JSON; peek has tried compact JSON's
// shortcut first.
func (s *scanner) next() (int, kind, *synErr) {
	pos := s.skipWS(s.prevEnd)
	if pos == len(s.buf) {
		if len(s.stack) == 0 {
			return pos, 0, &synErr{rawEOF: true}
		}
		return pos, 0, s.eofAt(pos, 0)
	}
	var delim byte
	if c := s.buf[pos]; c == ':' || c == ',' {
		delim = c
		pos = s.skipWS(pos + 1)
		if pos == len(s.buf) {
			err := s.eofAt(pos, 0)
			if s.needDelim('"') != delim {
				err = s.checkDelim(delim, '"')
			}
			return pos, 0, err
		}
	}
	k := normKind[s.buf[pos]]
	if s.needDelim(k) != delim {
		return pos, 0, s.checkDelim(delim, k)
	}
	return pos, k, nil
}

// checkDelim is the failure of a delimiter that does not fit the token
// after it.
func (s *scanner) checkDelim(delim byte, next kind) *synErr {
	where := "at start of value"
	switch s.needDelim(next) {
	case ':':
		where = "after object name (expecting ':')"
	case ',':
		if s.last.isObject() {
			where = "after object value (expecting ',' or '}')"
		} else {
			where = "after array element (expecting ',' or ']')"
		}
	}
	pos := s.skipWS(s.prevEnd)
	return s.fail(invalidCharacter(s.buf[pos:], where), pos, 0)
}

// peekKind is the kind of the next token, or 0 when it is invalid or a
// failure stands in its place (the next read reports it).
func (s *scanner) peekKind() kind {
	if !s.peeked {
		s.peek()
	}
	return s.peekedKind
}

// take returns the next token's position and kind, from peekKind's cache
// when it has looked.
func (s *scanner) take() (int, kind, *synErr) {
	if !s.peeked {
		s.peek()
	}
	s.peeked = false
	return s.peekPos, s.peekedKind, s.peekErr
}

// inputOffset is the offset just after the last token read.
func (s *scanner) inputOffset() int64 { return int64(s.prevEnd) }

// depth is the number of open objects and arrays.
func (s *scanner) depth() int { return len(s.stack) }

// readToken reads the next token; a string is validated but not kept (its
// name, when it is one, is returned unescaped and valid until the object
// closes).
func (s *scanner) readToken() ([]byte, *synErr) {
	pos, k, err := s.take()
	if err != nil {
		return nil, err
	}
	switch k {
	case 'n':
		return nil, s.literal(pos, "null")
	case 'f':
		return nil, s.literal(pos, "false")
	case 't':
		return nil, s.literal(pos, "true")
	case '"':
		if s.last.needName() {
			_, name, err := s.name(pos)
			return name, err
		}
		end, _, _, err := s.scanString(pos)
		if err != nil {
			return nil, err
		}
		s.last++
		s.prevEnd = end
		return nil, nil
	case '0':
		_, err := s.readNumberAt(pos)
		return nil, err
	case '{':
		return nil, s.open(pos, nil)
	case '}':
		return nil, s.close(pos)
	case '[':
		return nil, s.push(pos, 0)
	case ']':
		if s.last.isObject() || len(s.stack) == 0 {
			return nil, s.mismatch(pos)
		}
		s.pop(pos)
		return nil, nil
	}
	return nil, s.fail(invalidCharacter(s.buf[pos:], "at start of value"), pos, +1)
}

// open opens the object whose '{' is at pos, its members those of t (nil
// for an object the walk does not know).
func (s *scanner) open(pos int, t *memberSet) *synErr {
	if err := s.push(pos, objectEntry); err != nil {
		return err
	}
	if s.nobj == len(s.objs) {
		s.objs = append(s.objs, nameFrame{})
	}
	f := &s.objs[s.nobj]
	f.members, f.seen, f.names, f.set, f.lastPos = t, 0, f.names[:0], nil, -1
	s.nobj++
	s.top = f
	return nil
}

// close closes the object whose '}' is at pos.
func (s *scanner) close(pos int) *synErr {
	if !s.last.isObject() {
		return s.mismatch(pos)
	}
	if s.last.needValue() {
		return s.fail("missing value after object name", pos, +1)
	}
	s.pop(pos)
	s.nobj--
	s.top = nil
	if s.nobj > 0 {
		s.top = &s.objs[s.nobj-1]
	}
	return nil
}

// openObject reads the '{' peekKind has just found (it returned '{') and
// opens the object, its members those of t. Compact JSON's next token, a
// name or the '}', is read where it stands, without asking peek.
func (s *scanner) openObject(t *memberSet) *synErr {
	s.peeked = false
	pos := s.peekPos
	if err := s.open(pos, t); err != nil {
		return err
	}
	if p := pos + 1; p < len(s.buf) && (s.buf[p] == '"' || s.buf[p] == '}') {
		s.peeked, s.peekPos, s.peekedKind, s.peekErr = true, p, kind(s.buf[p]), nil
	}
	return nil
}

// closeObject reads the '}' peekKind has just found (it returned '}').
func (s *scanner) closeObject() *synErr {
	s.peeked = false
	return s.close(s.peekPos)
}

// seen is the set of the innermost object's members read so far, of its
// member set: bit i for index i.
func (s *scanner) seen() uint64 { return s.top.seen }

func (s *scanner) push(pos int, typ entry) *synErr {
	switch {
	case s.last.needName():
		return s.fail("object member name must be a string", pos, +1)
	case len(s.stack) == maxDepth:
		return s.fail("exceeded max depth", pos, +1)
	}
	s.last++
	s.stack = append(s.stack, s.last)
	s.last = typ
	s.prevEnd = pos + 1
	return nil
}

func (s *scanner) pop(pos int) {
	s.last = s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.prevEnd = pos + 1
	s.peekAfterValue(pos + 1) // the closed value was counted in its parent at push
}

// mismatch is the failure of a '}' or ']' that closes nothing open.
func (s *scanner) mismatch(pos int) *synErr {
	where := "at start of value"
	if len(s.stack) > 0 && s.last.length() > 0 {
		if s.last.isObject() {
			where = "after object value (expecting ',' or '}')"
		} else {
			where = "after array element (expecting ',' or ']')"
		}
	}
	return s.fail(invalidCharacter(s.buf[pos:], where), pos, +1)
}

func (s *scanner) literal(pos int, lit string) *synErr {
	b := s.buf[pos:]
	for i := 0; i < len(b) && i < len(lit); i++ {
		if b[i] != lit[i] {
			return s.fail(invalidCharacter(b[i:], "in literal "+lit+" (expecting "+strconv.QuoteRune(rune(lit[i]))+")"), pos+i, +1)
		}
	}
	if len(b) < len(lit) {
		return s.eofAt(len(s.buf), +1)
	}
	if s.last.needName() {
		return s.fail("object member name must be a string", pos, +1)
	}
	s.last++
	s.prevEnd = pos + len(lit)
	return nil
}

// name reads a member name at pos, refusing one the object already has,
// and returns its index in the object's member set (-1 if none) and the
// name, unescaped (valid until the object closes).
func (s *scanner) name(pos int) (int, []byte, *synErr) {
	end, escaped, n := s.shortString(pos), false, 0
	if end == 0 {
		var err *synErr
		if end, escaped, n, err = s.scanString(pos); err != nil {
			return 0, nil, err
		}
	}
	name := s.buf[pos+1 : end-1]
	if escaped { // rare: an allocation is fine
		name = bytes.Clone(s.st.pending(n))
	}
	f := s.top
	m := -1
	if f.members != nil {
		m = f.members.index(name)
	}
	if f.has(m, name) {
		return 0, nil, s.duplicate(pos, name)
	}
	s.named(f, pos, end)
	return m, name, nil
}

// member reads the member name peekKind has just found (it returned '"')
// in an object whose member set the walk gave at openObject, and returns
// its index in the set, or -1 (lastName then says what it is). A name of
// the set closed within sixteen bytes, without an escape, that the object
// does not have yet, as every name of a valid body is when written
// plainly, is read and found here in one pass over two words; any other
// goes through name.
func (s *scanner) member() (int, *synErr) {
	s.peeked = false
	pos, b := s.peekPos, s.buf
	if pos+17 < len(b) && s.last.needName() {
		w := b[pos+1 : pos+17 : pos+17]
		w0, w1 := binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
		// The name's length n, up to the first '"', and its bytes
		// zero-padded: a mask of the bytes below that quote (whose top
		// bit is the lowest one set). Whether they are plain need not be
		// asked: a name of the set is, and any other is not found.
		var n int
		if q0 := equalBytes(w0, '"'); q0 != 0 {
			n = bits.TrailingZeros64(q0) >> 3
			w0 &= (q0&-q0)>>7 - 1
			w1 = 0
		} else if q1 := equalBytes(w1, '"'); q1 != 0 {
			n = 8 + bits.TrailingZeros64(q1)>>3
			w1 &= (q1&-q1)>>7 - 1
		}
		if n != 0 {
			end := pos + 2 + n
			f := s.top
			if m := f.members.find(n, w0, w1); m >= 0 && f.seen&(1<<m) == 0 { // else name finds it again and says what it is
				f.seen |= 1 << m
				s.named(f, pos, end)
				return m, nil
			}
		}
	}
	if !s.last.needName() {
		_, err := s.readToken()
		return -1, err
	}
	m, _, err := s.name(pos)
	return m, err
}

func (s *scanner) duplicate(pos int, name []byte) *synErr {
	return &synErr{msg: "duplicate object member name", offset: pos, dup: true,
		ptr: s.pointer(+1) + "/" + jsonenc.EscapePointer(string(name))}
}

// named records the name just read, from pos to end, in f and the token
// state.
func (s *scanner) named(f *nameFrame, pos, end int) {
	f.lastPos = pos
	s.last++
	s.prevEnd = end
	// Compact JSON: the ':' and the value's first byte right after the
	// name, which is what peek would find there, without asking it.
	if b := s.buf; end+1 < len(b) && b[end] == ':' {
		if k := normKind[b[end+1]]; k != 0 {
			s.peeked, s.peekPos, s.peekedKind, s.peekErr = true, end+1, k, nil
		}
	}
}

// has reports whether the name (m its index in f's member set, or -1) is
// already in f, and adds it if not. A name of the set is one bit; others
// (which the schema refuses, but only after the whole body is read for
// I-JSON failures) are compared one by one, and once there are many, put
// in a map.
func (f *nameFrame) has(m int, name []byte) bool {
	if m >= 0 {
		bit := uint64(1) << m
		dup := f.seen&bit != 0
		f.seen |= bit
		return dup
	}
	const few = 32
	if f.set == nil {
		for _, n := range f.names {
			if string(n) == string(name) {
				return true
			}
		}
		f.names = append(f.names, name)
		if len(f.names) > few {
			f.set = make(map[string]struct{}, 2*few)
			for _, n := range f.names {
				f.set[string(n)] = struct{}{}
			}
		}
		return false
	}
	if _, ok := f.set[string(name)]; ok {
		return true
	}
	f.set[string(name)] = struct{}{}
	return false
}

// lastName is the last name read in the innermost open object.
func (s *scanner) lastName() string { return s.frameName(s.top) }

// frameName is the last name read in f, read again from the body.
func (s *scanner) frameName(f *nameFrame) string {
	if f.lastPos < 0 {
		return ""
	}
	if end := s.shortString(f.lastPos); end != 0 {
		return string(s.buf[f.lastPos+1 : end-1])
	}
	wide := s.wide
	end, escaped, n, _ := s.scanString(f.lastPos) // valid: it was read
	s.wide = wide
	if escaped {
		return string(s.st.pending(n))
	}
	return string(s.buf[f.lastPos+1 : end-1])
}

// pointer is jsontext's stack pointer: where 0 names the last value read
// (in an object, only once its name is read), where +1 the next one.
func (s *scanner) pointer(where int) string {
	var b []byte
	depth := len(s.stack) + 1
	obj := 0
	for i := 1; i < depth; i++ {
		e := s.last
		if i < len(s.stack) {
			e = s.stack[i]
		}
		delta := int64(-1) // the array item being read
		if i == depth-1 {
			switch {
			case where == 0 && !e.needValue(), where > 0 && e.needName():
				return string(b)
			case where > 0 && !e.isObject():
				delta = 0 // the item about to be read
			}
		}
		if e.isObject() {
			b = append(b, '/')
			b = append(b, jsonenc.EscapePointer(s.frameName(&s.objs[obj]))...)
			obj++
		} else {
			b = strconv.AppendInt(append(b, '/'), e.length()+delta, 10)
		}
	}
	return string(b)
}

// readString reads the string value peekKind has just found (it returned
// '"') and returns its inside as written (valid while the body is) or, when
// it holds an escape (escaped), decoded (s.st.pending: valid until the next
// string is read), and its length decoded.
func (s *scanner) readString() ([]byte, bool, int, *synErr) {
	s.peeked = false
	pos := s.peekPos
	end, escaped, n := s.shortString(pos), false, 0
	if end == 0 {
		var err *synErr
		if end, escaped, n, err = s.scanString(pos); err != nil {
			return nil, false, 0, err
		}
	} else {
		n = end - pos - 2
	}
	s.last++
	s.prevEnd = end
	s.peekAfterValue(end)
	if escaped {
		return s.st.pending(n), true, n, nil
	}
	return s.buf[pos+1 : end-1], false, n, nil
}

// peekAfterValue caches the token after a value that ends at end (the
// state already counts it) when compact JSON puts it right there: a ','
// and the next item or member name, or the '}' or ']' that closes. That is
// what peek would find, without asking it; anything else is left to peek.
// Inside the top-level value only: after it, peek's general path judges
// what follows.
func (s *scanner) peekAfterValue(end int) {
	if end+1 >= len(s.buf) || len(s.stack) == 0 {
		return
	}
	p := end
	if s.buf[p] == ',' {
		p++
	}
	// A closer without a ',', anything else after one: what a value
	// leaves the delimiter to need.
	if k := normKind[s.buf[p]]; k != 0 && (k == '}' || k == ']') == (p == end) {
		s.peeked, s.peekPos, s.peekedKind, s.peekErr = true, p, k, nil
	}
}

// readNumber reads the number value peekKind has just found (it returned
// '0') and returns its literal, valid while the body is.
func (s *scanner) readNumber() ([]byte, *synErr) {
	s.peeked = false
	return s.readNumberAt(s.peekPos)
}

// smallInteger reads the number value peekKind has just found (it returned
// '0') when it is the commonest kind, 0 or up to fifteen digits without a
// leading zero, and returns its value; ok is false, and nothing read, for
// any other (readNumber reads it). Fifteen digits stay below 2^53.
//
// Cost: one pass over the digits, reading and valuing them at once.
func (s *scanner) smallInteger() (v int, ok bool) {
	pos := s.peekPos
	b := s.buf[pos:min(len(s.buf), pos+16)]
	n := 0
	for n < len(b) && b[n]-'0' <= 9 {
		v = v*10 + int(b[n]-'0')
		n++
	}
	if n == 0 || n == len(b) || n > 1 && b[0] == '0' || b[n] == '.' || b[n]|0x20 == 'e' || s.last.needName() {
		return 0, false // n == len(b): sixteen digits, or the body's end
	}
	i := pos + n
	s.peeked = false
	s.last++
	s.prevEnd = i
	s.peekAfterValue(i)
	return v, true
}

func (s *scanner) readNumberAt(pos int) ([]byte, *synErr) {
	n, err := s.scanNumber(pos)
	if err != nil {
		return nil, err
	}
	if s.last.needName() {
		return nil, s.fail("object member name must be a string", pos, +1)
	}
	s.last++
	s.prevEnd = pos + n
	s.peekAfterValue(pos + n)
	return s.buf[pos : pos+n], nil
}

// scanNumber returns the length of the number literal at pos, with
// jsontext's failures: a missing digit is an invalid character where it
// should be; a body that ends inside the literal ends at its start.
func (s *scanner) scanNumber(pos int) (int, *synErr) {
	b := s.buf[pos:]
	n := 0
	digit := func() *synErr {
		switch {
		case n >= len(b):
			return s.eofAt(pos, +1)
		case '0' <= b[n] && b[n] <= '9':
			n++
			return nil
		}
		return s.fail(invalidCharacter(b[n:], "in number (expecting digit)"), pos+n, +1)
	}
	digits := func() {
		for n < len(b) && '0' <= b[n] && b[n] <= '9' {
			n++
		}
	}
	if b[0] == '-' {
		n++
	}
	if n < len(b) && b[n] == '0' {
		n++
	} else {
		if err := digit(); err != nil {
			return 0, err
		}
		digits()
	}
	if n < len(b) && b[n] == '.' {
		n++
		if err := digit(); err != nil {
			return 0, err
		}
		digits()
	}
	if n < len(b) && (b[n] == 'e' || b[n] == 'E') {
		n++
		if n < len(b) && (b[n] == '-' || b[n] == '+') {
			n++
		}
		if err := digit(); err != nil {
			return 0, err
		}
		digits()
	}
	return n, nil
}

// shortString is scanString's answer for the commonest string, plain ASCII
// closed within the sixteen bytes after its opening quote, as member names
// and labels are: the offset after its closing quote (its length decoded
// is end-pos-2, it has no escape). For any other string it is 0, and its
// callers ask scanString. A leaf call with one result costs such a string
// about a third of what scanString's frame and four results do.
func (s *scanner) shortString(pos int) (end int) {
	if i := pos + 1; i+16 < len(s.buf) {
		if i += plain16(s.buf[i : i+16]); s.buf[i] == '"' {
			return i + 1
		}
	}
	return 0
}

// scanString validates the string at pos (s.buf[pos] is '"') and returns
// the offset just after its closing quote, whether it holds an escape, and
// its length in bytes once decoded. A string with an escape it also
// writes, decoded, from its first escape on (decodeFrom): s.st.pending(n),
// until the next string is read. Failures are jsontext's: the first
// invalid byte, escape or control character; a body that ends inside the
// string, at the start of a cut escape or sequence.
//
// Cost: linear; thirty-two bytes per step over ASCII (asciiRun; the first
// sixteen inline), one code point per step over other text (plainRun),
// every valid escape without a call: a run of \uXXXX in a loop of its own.
func (s *scanner) scanString(pos int) (end int, escaped bool, n int, err *synErr) {
	b := s.buf
	i := pos + 1
	// The first sixteen bytes inline: most strings, names and labels above
	// all, end within them, and are spared the call.
	if i+16 <= len(b) {
		j := plain16(b[i : i+16])
		if i += j; j == 16 {
			i = asciiRun(b, i)
		}
	} else {
		i = asciiRun(b, i)
	}
	for {
		if i >= len(b) {
			return 0, false, 0, s.eofAt(len(b), +1)
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, false, i - pos - 1, nil
		case c >= utf8.RuneSelf:
			// plainRun stops where asciiRun would not start: on to what
			// it stopped at.
			s.wide = true
			if j := plainRun(b, i); j > i {
				i = j
				continue
			}
			if !utf8.FullRune(b[i:]) {
				return 0, false, 0, s.eofAt(i, +1)
			}
			return 0, false, 0, s.fail("invalid UTF-8", i, +1)
		case c != '\\': // a control character
			return 0, false, 0, s.fail(invalidCharacter(b[i:], "in string (expecting non-control character)"), i, +1)
		}
		end, n, err := s.decodeFrom(pos, i)
		return end, true, n, err
	}
}

// decodeFrom goes on with the string at pos from its first escape, at i:
// it validates the rest as scanString does and, in the same pass, writes
// the string decoded just past the end of s.st's chunk: st.pending(n) is
// the string on return.
//
// Cost: linear, one pass: the checks of scanString, and sixteen bytes a
// step stored whole between escapes (cut at the first byte that is not
// plain ASCII), an escape's bytes in one store. The chunk's room is tested
// once per escape or run; a string that outgrows it moves once, to a chunk
// that holds the rest of the body (st.grow).
func (s *scanner) decodeFrom(pos, i int) (end int, n int, err *synErr) {
	b := s.buf
	pb := unsafe.Pointer(unsafe.SliceData(b)) // for unchecked reads
	// The string is dst[base:di], its first plain bytes first.
	c := s.st.chunk
	dst, base, di := s.st.appendRun(c[:cap(c)], len(c), len(c), b[pos+1:i], len(b)-pos)
	pd := unsafe.Pointer(unsafe.SliceData(dst))
	for {
		if i >= len(b) {
			return 0, 0, s.eofAt(len(b), +1)
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, di - base, nil
		case c >= utf8.RuneSelf:
			s.wide = true
			j := plainRun(b, i)
			if j == i {
				if !utf8.FullRune(b[i:]) {
					return 0, 0, s.eofAt(i, +1)
				}
				return 0, 0, s.fail("invalid UTF-8", i, +1)
			}
			dst, base, di = s.st.appendRun(dst, base, di, b[i:j], len(b)-i)
			pd = unsafe.Pointer(unsafe.SliceData(dst))
			i = j
			continue
		case c != '\\': // a control character
			return 0, 0, s.fail(invalidCharacter(b[i:], "in string (expecting non-control character)"), i, +1)
		}
		// Escapes, and the short runs of plain ASCII between them, in a
		// loop of their own while an escape follows a run: text that
		// escapes a byte every few (Python's json.dumps, Go's HTML-safe
		// escapes) stays in it.
		for {
			if di+decodeSlack > len(dst) {
				dst, base, di = s.st.grow(dst, base, di, decodeSlack, len(b)-i)
				pd = unsafe.Pointer(unsafe.SliceData(dst))
			}
			if i+1 < len(b) && shortEscape[b[i+1]] { // \n, \" and the like
				dst[di] = unescapedByte[b[i+1]]
				i, di = i+2, di+1
			} else {
				// A run of \uXXXX (as json.dumps writes all non-ASCII
				// text) in a loop of its own. The string is wide only if
				// one stands for more than ASCII: Go's \u003c, \u003e and
				// \u0026 do not.
				j, or := i, uint16(0)
				for j+6 <= len(b) { // the six bytes tested once, read unchecked
					if load16(pb, j) != backslashU {
						break
					}
					v, ok := hexWord(load32(pb, j+2))
					if !ok {
						break
					}
					or |= v
					switch {
					case v < 0x80:
						dst[di] = byte(v)
						di++
					case v < 0x800:
						store32(pd, di, uint32(0xC0|v>>6)|uint32(0x80|v&0x3F)<<8)
						di += 2
					case !utf16.IsSurrogate(rune(v)):
						store32(pd, di, uint32(0xE0|v>>12)|uint32(0x80|v>>6&0x3F)<<8|uint32(0x80|v&0x3F)<<16)
						di += 3
					default:
						r := surrogatePair(v, b[j:])
						if r < 0 {
							return 0, 0, s.escapeError(j)
						}
						store32(pd, di, uint32(0xF0|r>>18)|uint32(0x80|r>>12&0x3F)<<8|uint32(0x80|r>>6&0x3F)<<16|uint32(0x80|r&0x3F)<<24)
						di += 4
						j += 6
					}
					j += 6
					if di+decodeSlack > len(dst) {
						dst, base, di = s.st.grow(dst, base, di, decodeSlack, len(b)-j)
						pd = unsafe.Pointer(unsafe.SliceData(dst))
					}
				}
				if j == i {
					return 0, 0, s.escapeError(i)
				}
				if or >= utf8.RuneSelf {
					s.wide = true
				}
				i = j
			}
			// The run after it: sixteen bytes stored whole and cut at the
			// first that is not plain ASCII; another escape right after
			// them is read here.
			if i+16 > len(b) {
				if i < len(b) && b[i] != '\\' {
					j := asciiRun(b, i)
					di += copy(dst[di:], b[i:j]) // under sixteen: within the slack
					i = j
				}
				break
			}
			w0, w1 := load64(pb, i), load64(pb, i+8)
			store64(pd, di, w0)
			store64(pd, di+8, w1)
			t0, t1 := notPlainASCII(w0), notPlainASCII(w1)
			j := 8 + bits.TrailingZeros64(t1)>>3 // 16 when t1 is 0 too
			if t0 != 0 {
				j = bits.TrailingZeros64(t0) >> 3
			}
			if j == 16 {
				k := asciiRun(b, i+16)
				dst, base, di = s.st.appendRun(dst, base, di, b[i:k], len(b)-i)
				pd = unsafe.Pointer(unsafe.SliceData(dst))
				i = k
				break
			}
			if i, di = i+j, di+j; b[i] != '\\' {
				break
			}
		}
	}
}

// decodeSlack is the room decodeFrom keeps past what it has written: a
// block of sixteen bytes stored whole, or an escape's four bytes stored
// as one word.
const decodeSlack = 32

const backslashU = '\\' | 'u'<<8 // `\u` read as a little-endian uint16

// shortEscape holds the bytes that make a two-byte escape after '\\'.
var shortEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// asciiRun returns the end of the run of plain ASCII from b[i] (ASCII
// other than '"', '\\' and control characters): the first byte from i that
// is not, or len(b).
//
// Cost: under 2 instructions a byte over a long run: sixteen bytes, then
// thirty-two per step, four words whose tests are independent, one bounds
// check and one mask for the four; the last thirty-one bytes sixteen, then
// one, at a time.
func asciiRun(b []byte, i int) int {
	// Sixteen bytes first: the runs between escapes, and the rest of most
	// strings, are shorter, and would cost a failed test of thirty-two
	// and then this one.
	if i+16 <= len(b) {
		if j := plain16(b[i : i+16 : i+16]); j < 16 {
			return i + j
		}
		i += 16
	}
	for ; i+32 <= len(b); i += 32 {
		c := b[i : i+32 : i+32]
		if (notPlainRaw(binary.LittleEndian.Uint64(c))|notPlainRaw(binary.LittleEndian.Uint64(c[8:]))|
			notPlainRaw(binary.LittleEndian.Uint64(c[16:]))|notPlainRaw(binary.LittleEndian.Uint64(c[24:])))&highBits != 0 {
			if j := plain16(c[:16]); j < 16 { // where, once
				return i + j
			}
			return i + 16 + plain16(c[16:])
		}
	}
	for ; i+16 <= len(b); i += 16 {
		c := b[i : i+16 : i+16]
		if notPlainASCII(binary.LittleEndian.Uint64(c))|notPlainASCII(binary.LittleEndian.Uint64(c[8:])) != 0 {
			return i + plain16(c) // where, once
		}
	}
	for i < len(b) && b[i] >= ' ' && b[i] < utf8.RuneSelf && b[i] != '"' && b[i] != '\\' {
		i++
	}
	return i
}

// plain16 is the index in b[:16] of the first byte that is not plain ASCII
// (as asciiRun), or 16.
//
// Cost: two words whose tests are independent, no loop: small enough to
// be inlined.
func plain16(b []byte) int {
	t0 := notPlainASCII(binary.LittleEndian.Uint64(b))
	t1 := notPlainASCII(binary.LittleEndian.Uint64(b[8:]))
	if t0 != 0 {
		return bits.TrailingZeros64(t0) >> 3
	}
	return 8 + bits.TrailingZeros64(t1)>>3 // 16 when t1 is 0 too
}

// surrogatePair is the code point of the pair of \uXXXX escapes at the
// start of b whose first half is the surrogate hi, or -1 when hi is not a
// high half or no low half follows.
func surrogatePair(hi uint16, b []byte) rune {
	if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
		return -1
	}
	lo, ok := hex4(b[8:12])
	r := utf16.DecodeRune(rune(hi), rune(lo)) // U+FFFD unless hi is high and lo low
	if !ok || r == utf8.RuneError {
		return -1
	}
	return r
}

// escapeError is the failure of the escape at s.buf[i] ('\\'), one that
// scanString does not accept: a body cut inside it, a letter that escapes
// nothing, a bad hex digit, or a surrogate that is not the high half of a
// pair.
func (s *scanner) escapeError(i int) *synErr {
	b := s.buf
	switch {
	case len(b) < i+2:
		return s.eofAt(i, +1)
	case b[i+1] != 'u':
		return s.fail(invalidEscape(b[i:i+2]), i, +1)
	case len(b) < i+6:
		if escapePrefix(b[i:], false) {
			return s.eofAt(i, +1)
		}
		return s.fail(invalidEscape(b[i:]), i, +1)
	}
	if _, ok := hex4(b[i+2 : i+6]); !ok {
		return s.fail(invalidEscape(b[i:i+6]), i, +1)
	}
	j := i + 6 // where the low half should be
	if len(b) < j+6 {
		if escapePrefix(b[j:], true) {
			return s.eofAt(i, +1)
		}
		return s.fail(invalidEscape(b[i:]), i, +1)
	}
	return s.fail(invalidEscape(b[i:j+6]), i, +1)
}

// escapePrefix reports whether b may be the start of a \uXXXX escape cut by
// the end of the body (for the low half of a pair, \uDC00–\uDFFF).
func escapePrefix(b []byte, low bool) bool {
	for i, c := range b {
		switch {
		case i == 0 && c != '\\', i == 1 && c != 'u':
			return false
		case i == 2 && low && c != 'd' && c != 'D':
			return false
		case i == 3 && low && !('c' <= c && c <= 'f') && !('C' <= c && c <= 'F'):
			return false
		case i >= 2 && i < 6 && hexVal[c] == notHex:
			return false
		}
	}
	return true
}

// hexVal is the value of a hex digit, or notHex for any other byte: a bit
// above the sixteen of four digits, so that hex4 tests all four at once.
var hexVal = func() (t [256]uint32) {
	for i := range t {
		t[i] = notHex
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = uint32(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = uint32(c - 'a' + 10)
		t[c-'a'+'A'] = uint32(c - 'a' + 10)
	}
	return t
}()

const notHex = 1 << 16

// hex4 decodes the four hex digits b[0:4]. Cost: four table lookups, their
// validity tested once.
func hex4(b []byte) (uint16, bool) { return hexWord(binary.LittleEndian.Uint32(b)) }

// hexWord decodes four hex digits read as a little-endian word.
func hexWord(w uint32) (uint16, bool) {
	v := hexVal[byte(w)]<<12 | hexVal[byte(w>>8)]<<8 | hexVal[byte(w>>16)]<<4 | hexVal[byte(w>>24)]
	return uint16(v), v < notHex
}

// plainRun returns the end of the run from b[i] of what a JSON string holds
// as it is: ASCII other than '"', '\\' and control characters, and
// well-formed multi-byte UTF-8. It stops at the first byte that needs a
// closer look (the start of whatever is not such a code point), so
// b[i:end] can be copied without another check.
//
// Cost: linear; ASCII as asciiRun reads it, and other text through a
// shift-based DFA whose only dependency from byte to byte is one shift.
func plainRun(b []byte, i int) int {
	for {
		// ASCII through asciiRun, thirty-two bytes a step: text with a
		// curly quote or an accent now and then is mostly ASCII.
		if i = asciiRun(b, i); i == len(b) || b[i] < utf8.RuneSelf {
			return i
		}
		// 16 bytes at a time through the DFA; only its state after the
		// 16th is looked at, since a failure is final (utfError is a
		// sink). i is a code point boundary up to which all is plain.
		st := uint64(utfAccept)
		j := i
		for j+16 <= len(b) {
			c := b[j : j+16 : j+16]
			st = utfDFA[c[0]] >> (st & 63)
			st = utfDFA[c[1]] >> (st & 63)
			st = utfDFA[c[2]] >> (st & 63)
			st = utfDFA[c[3]] >> (st & 63)
			st = utfDFA[c[4]] >> (st & 63)
			st = utfDFA[c[5]] >> (st & 63)
			st = utfDFA[c[6]] >> (st & 63)
			st = utfDFA[c[7]] >> (st & 63)
			st = utfDFA[c[8]] >> (st & 63)
			st = utfDFA[c[9]] >> (st & 63)
			st = utfDFA[c[10]] >> (st & 63)
			st = utfDFA[c[11]] >> (st & 63)
			st = utfDFA[c[12]] >> (st & 63)
			st = utfDFA[c[13]] >> (st & 63)
			st = utfDFA[c[14]] >> (st & 63)
			st = utfDFA[c[15]] >> (st & 63)
			if st&63 == utfError {
				return plainTail(b, i)
			}
			j += 16
			i = j
			if st&63 != utfAccept {
				// Inside a code point: it starts at most 3 bytes back, at
				// the last byte that is not a continuation byte.
				for i--; b[i]&0xC0 == 0x80; i-- {
				}
			}
			if st&63 == utfAccept && j+8 <= len(b) && notPlainASCII(binary.LittleEndian.Uint64(b[j:])) == 0 {
				break // back to eight ASCII bytes at a time
			}
		}
		if j+16 > len(b) {
			return plainTail(b, i)
		}
	}
}

// notPlainASCII has the top bit set of each of the eight bytes of w (from
// the lowest address up) that is not ASCII, is below 0x20, or is '"' or
// '\\'; a borrow may set it in the bytes above one of those too, never
// below, so the lowest bit set marks the first such byte.
//
// Control characters and '"' take one test: flipping bit 1 maps '"'
// (0x22) to 0x20 and keeps 0x00–0x1F below 0x20, 0x20 and 0x21 going to
// 0x22 and 0x23, so the bytes below 0x21 after the flip are exactly those.
// Seven operations a word.
func notPlainASCII(w uint64) uint64 { return notPlainRaw(w) & highBits }

// equalBytes has the top bit set of each byte of w that is c, and perhaps
// of bytes above one: the lowest bit set marks the first.
func equalBytes(w uint64, c byte) uint64 {
	const lo = 0x0101010101010101
	x := w ^ uint64(c)*lo
	return (x - lo) &^ x & highBits
}

// notPlainRaw is notPlainASCII before its mask: only the top bit of each
// byte means anything, so that words can be or-ed before one mask.
func notPlainRaw(w uint64) uint64 {
	const lo = 0x0101010101010101
	return w | ((w ^ 0x02*lo) - 0x21*lo) | ((w ^ '\\'*lo) - lo)
}

const highBits = 0x8080808080808080 // the top bit of each byte of a word

// plainTail is plainRun one byte at a time from the boundary i: the DFA,
// remembering the last boundary it passed.
func plainTail(b []byte, i int) int {
	st, last := uint64(utfAccept), i
	for j := i; j < len(b); j++ {
		st = utfDFA[b[j]] >> (st & 63)
		switch st & 63 {
		case utfAccept:
			last = j + 1
		case utfError:
			return last
		}
	}
	return last
}

// The UTF-8 DFA's states, as bit offsets into its table's words: between
// code points (accept), failed (error: a byte that is not plain, or
// ill-formed UTF-8), or inside a code point, needing so many more
// continuation bytes, the next one perhaps from a narrower range.
const (
	utfAccept = 6 * iota
	utfError
	utfNeed1        // 80–BF
	utfNeed2        // 80–BF, then 1
	utfNeed2AfterE0 // A0–BF: no overlong form
	utfNeed2AfterED // 80–9F: no surrogate
	utfNeed3        // 80–BF, then 2
	utfNeed3AfterF0 // 90–BF: no overlong form
	utfNeed3AfterF4 // 80–8F: nothing beyond U+10FFFF
)

// utfDFA[c] holds, at the bit offset of each state, the state that byte c
// leads to from it.
var utfDFA = func() (t [256]uint64) {
	in := func(c, lo, hi int) bool { return lo <= c && c <= hi }
	next := func(from, c int) int {
		switch from {
		case utfAccept:
			switch {
			case c < 0x80 && c >= ' ' && c != '"' && c != '\\':
				return utfAccept
			case in(c, 0xC2, 0xDF):
				return utfNeed1
			case c == 0xE0:
				return utfNeed2AfterE0
			case c == 0xED:
				return utfNeed2AfterED
			case in(c, 0xE1, 0xEF):
				return utfNeed2
			case c == 0xF0:
				return utfNeed3AfterF0
			case in(c, 0xF1, 0xF3):
				return utfNeed3
			case c == 0xF4:
				return utfNeed3AfterF4
			}
		case utfNeed1:
			if in(c, 0x80, 0xBF) {
				return utfAccept
			}
		case utfNeed2:
			if in(c, 0x80, 0xBF) {
				return utfNeed1
			}
		case utfNeed2AfterE0:
			if in(c, 0xA0, 0xBF) {
				return utfNeed1
			}
		case utfNeed2AfterED:
			if in(c, 0x80, 0x9F) {
				return utfNeed1
			}
		case utfNeed3:
			if in(c, 0x80, 0xBF) {
				return utfNeed2
			}
		case utfNeed3AfterF0:
			if in(c, 0x90, 0xBF) {
				return utfNeed2
			}
		case utfNeed3AfterF4:
			if in(c, 0x80, 0x8F) {
				return utfNeed2
			}
		}
		return utfError
	}
	for c := range t {
		for from := utfAccept; from <= utfNeed3AfterF4; from += 6 {
			t[c] |= uint64(next(from, c)) << from
		}
	}
	return t
}()

// load16, load32 and load64 read the two, four or eight bytes at p+i as
// binary.LittleEndian does, and store32 and store64 write them, without a
// bounds check: their callers have tested the bytes are there (a test per
// block or escape instead of one per access, which cost a third of the
// unescaping of escape-dense text).
func load16(p unsafe.Pointer, i int) uint16 {
	return binary.LittleEndian.Uint16((*[2]byte)(unsafe.Add(p, i))[:])
}
func load32(p unsafe.Pointer, i int) uint32 {
	return binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(p, i))[:])
}
func load64(p unsafe.Pointer, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, i))[:])
}
func store32(p unsafe.Pointer, i int, w uint32) {
	binary.LittleEndian.PutUint32((*[4]byte)(unsafe.Add(p, i))[:], w)
}
func store64(p unsafe.Pointer, i int, w uint64) {
	binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(p, i))[:], w)
}

// unescapedByte is what a two-byte escape stands for, by its second byte.
var unescapedByte = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// strStore holds the strings of one Request, each written once, straight
// from the body, into memory that is not zeroed first. A string without
// escapes of more than ownBytes gets an allocation of its own, exactly its
// size (or is the body's own bytes: shared); every other string is
// appended to a chunk whose capacity is never exceeded, so the strings cut
// from it stay where they are.
//
// A string with an escape is decoded in the pass that validates it
// (scanner.decodeFrom), before its length is known, straight into the
// chunk's room; keep then takes it where it is. One that outgrows the
// room moves, once, to a chunk that holds the rest of the body decoded, so
// no later string needs another: the strings then take at most the
// body's bytes (docs/decoder.md, "One copy of each text").
type strStore struct {
	chunk []byte // the strings so far of the current chunk
	// shared: a string of more than ownBytes without escapes is the
	// body's own bytes (DecodeShared).
	shared bool
}

// newChunk is an empty slice of capacity size whose memory is not zeroed
// first: a strings.Builder's, grown, which has no other way to give it.
// Each string cut from a chunk is written once, then never again: the
// chunk only grows (within its capacity) past it.
func newChunk(size int) []byte {
	var b strings.Builder
	b.Grow(size)
	b.WriteByte(0) // a string that is not empty has its memory's address
	return unsafe.Slice(unsafe.StringData(b.String()), size)[:0]
}

const (
	ownBytes   = 512
	chunkBytes = 16 << 10
)

// pending is the string of n bytes that decodeFrom last wrote past the
// chunk's end: valid until the next string is read.
func (st *strStore) pending(n int) []byte {
	c := st.chunk
	return c[len(c) : len(c)+n]
}

// appendRun appends run, plain bytes, to the string being decoded,
// dst[base:di], and returns it as grow does: moved first when the chunk
// has no room for run and decodeSlack after it. rest is the body's bytes
// not yet read from run's start.
func (st *strStore) appendRun(dst []byte, base, di int, run []byte, rest int) ([]byte, int, int) {
	if di+len(run)+decodeSlack > len(dst) {
		dst, base, di = st.grow(dst, base, di, len(run)+decodeSlack, rest)
	}
	return dst, base, di + copy(dst[di:], run)
}

// grow gives the string being decoded, dst[base:di], a new chunk with room
// for need bytes more, and returns the chunk's memory and where the string
// now starts and ends in it. rest is the body's bytes not yet read, which
// decode to at most as many. A string still short when it outgrows the
// chunk's room (with what it needs next, at most ownBytes and the slack)
// gets a chunk of chunkBytes, as a short string without escapes would; a
// longer one a chunk for all the rest of the body, which no later string
// outgrows. So every chunk left behind but one leaves less than ownBytes
// and the slack of its room unused, as keep's do.
func (st *strStore) grow(dst []byte, base, di, need, rest int) ([]byte, int, int) {
	w := di - base
	size := w + rest + decodeSlack
	if w+need <= ownBytes+decodeSlack {
		size = min(size, chunkBytes)
	}
	size = max(size, w+need)
	d := newChunk(size)[:size]
	copy(d, dst[base:di])
	st.chunk = d[:0]
	return d, 0, w
}

// keep stores a string that scanString found valid, n bytes long decoded,
// and returns it: raw is its inside as written, or for a string with an
// escape (escaped) its decoded bytes, st.pending(n), which keep takes
// where they are. bound is an upper limit on the bytes that all strings
// from this one on can need (the rest of the body), so that no chunk is
// bigger than what can be used.
func (st *strStore) keep(raw []byte, escaped bool, n, bound int) string {
	switch {
	case n == 0:
		return ""
	case escaped:
		c := st.chunk
		st.chunk = c[:len(c)+n]
		return unsafe.String(&raw[0], n)
	case n > ownBytes && st.shared:
		return unsafe.String(&raw[0], n)
	}
	c := st.chunk
	if cap(c)-len(c) < n {
		if n > ownBytes {
			return string(raw)
		}
		c = newChunk(min(chunkBytes, max(bound, n)))
	}
	start := len(c)
	c = append(c, raw...)
	st.chunk = c
	return unsafe.String(&c[start], n)
}

// invalidCharacter, invalidEscape and quoteWhat give jsontext's (its
// internal jsonwire's) words for an invalid character, escape or surrogate
// pair; what follows is the raw text at fault.
func invalidCharacter(b []byte, where string) string {
	_, n := utf8.DecodeRune(b)
	return invalidText("character", b[:n], where)
}

func invalidEscape(what []byte) string {
	if len(what) > 6 {
		return invalidText("surrogate pair", what, "in string")
	}
	return invalidText("escape sequence", what, "in string")
}

func invalidText(label string, what []byte, where string) string {
	var q string
	switch {
	case utf8.RuneCount(what) == 1:
		q = quoteRune(what)
	case bytes.ContainsFunc(what, func(r rune) bool {
		return r == '`' || r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r)
	}):
		q = strconv.Quote(string(what))
	default:
		q = "`" + string(what) + "`"
	}
	return strings.TrimSuffix("invalid "+label+" "+q+" "+where, " ")
}

func quoteRune(b []byte) string {
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 {
		return `'\x` + strconv.FormatUint(uint64(b[0]), 16) + `'`
	}
	return strconv.QuoteRune(r)
}
