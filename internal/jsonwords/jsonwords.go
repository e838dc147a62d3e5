// Package jsonwords says in plain words why an input is not JSON, for
// every reader that finds out with jsontext's decoder (the quotes
// readers, the annotation scanner): one mapping, so that a fault reads
// alike whichever command meets it.
//
// The words come from what the reader has: the byte offset of the
// *jsontext.SyntacticError, the input's bytes around it, and the
// decoder's state (its open objects and arrays, and how many names and
// values each has). They never come from the library's own message,
// which it may word differently in any release; the only errors matched
// are the ones it exports (ErrDuplicateName, io.ErrUnexpectedEOF).
// The words name no library and no Go type, and say what a person would
// fix.
package jsonwords

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxNesting is how deep objects and arrays may nest: jsontext's own
// bound, which the engine's request scanner shares (spec §5.13).
const MaxNesting = 10000

// Input is what a reader knows where its decoder stopped.
type Input struct {
	// Dec is the decoder that returned the error. Its state is that
	// after the last token it read whole; a reader may have read a
	// whole value since (ReadValue, SkipValue), which Describe reads
	// again from Window to learn the state at the fault.
	Dec *jsontext.Decoder
	// Window is the input from decoder offset Start on, through the
	// fault's byte and as far past it as is held: the whole input (Start
	// 0) for a reader that holds it, else Dec.UnreadBuffer() (Start
	// Dec.InputOffset()). Start must not be after Dec.InputOffset().
	Window []byte
	Start  int64
	// Whole says that Window is the whole input, and that every decoder
	// offset plus Base is an offset of the input (no bytes were left
	// out before the fault): the words may then name where the string,
	// number or object at fault starts, and a character by its code
	// point. A streaming reader's words name only the fault's byte and
	// the byte itself, so that they do not depend on how the input was
	// read or buffered.
	Whole bool
	// Opens are the decoder offsets of the open objects and arrays,
	// outermost first, when the reader tracks them (Whole readers
	// only); nil when it does not.
	Opens []int64
	// Base is added to every offset, the fault's and those the words
	// name: the bytes before the decoder's input (a byte order mark), or
	// those a streaming reader left out of it.
	Base int64
	// Name repeats a member name in the words (e.g. cut to a bound); nil
	// repeats it whole.
	Name func(string) string
}

// Fault is a syntax error in plain words.
type Fault struct {
	At    int64  // offset of the byte it is reported at, Base included
	Ptr   string // JSON Pointer of the value it is in, as jsontext knows it
	Words string // what is wrong, without the byte ("… at byte N" is the caller's)
}

// Describe says why the input is not JSON, err being what in.Dec (or a
// ReadValue of it) returned: a *jsontext.SyntacticError, or io.EOF when
// the input ends before any value.
//
// Cost: linear in the bytes of Window before the fault, which are read
// again only when the reader had read a whole value since the decoder's
// last token; memory, a decoder's for that value.
func Describe(err error, in Input) Fault {
	d := describer{Input: in, pos: int(in.Dec.InputOffset() - in.Start)}
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) { // nothing but white space, or a reader's own truncation
		words := "the input ends before a value"
		if errors.Is(err, io.ErrUnexpectedEOF) {
			words = "the input ends before the value is complete"
		}
		return Fault{At: in.Base + in.Start + int64(len(in.Window)), Words: words}
	}
	d.se = se
	if se.Err == jsontext.ErrDuplicateName {
		return Fault{At: in.Base + se.ByteOffset, Ptr: string(se.JSONPointer),
			Words: "the member " + d.name(se.JSONPointer.LastToken()) + " appears twice in one object"}
	}
	eof := errors.Is(se.Err, io.ErrUnexpectedEOF)
	d.at = int(se.ByteOffset - in.Start)
	if eof || d.at > len(in.Window) {
		d.at = len(in.Window)
	}
	d.replay()
	if eof {
		return d.ends()
	}
	return d.fault()
}

// describer is one Describe: offsets are indices into Window.
type describer struct {
	Input
	se  *jsontext.SyntacticError
	pos int // the decoder's position: the end of its last token
	at  int // the fault
	// What a replay of the value the reader read since the decoder's
	// last token found: rep's state, the end of its last whole token
	// (end), and the objects and arrays it opened.
	rep   *jsontext.Decoder
	read  bool
	end   int
	opens []int
}

// replay reads again, token by token, what lies between the decoder's
// position and the fault, stopping before the token that starts at the
// fault or at the first error, so that the state (depth, kind, count)
// is that of the fault's token. When the decoder read tokens one by
// one, the token at fault is the next and nothing is read whole.
func (d *describer) replay() {
	w := d.Window
	s := d.sep(d.pos)
	d.end = d.pos
	if s >= d.at {
		return
	}
	d.rep = jsontext.NewDecoder(bytes.NewReader(w[s:]), jsontext.AllowDuplicateNames(true))
	for {
		if d.read && d.sep(d.end) >= d.at {
			return
		}
		tok, err := d.rep.ReadToken()
		if err != nil {
			return
		}
		d.read = true
		d.end = s + int(d.rep.InputOffset())
		switch tok.Kind() {
		case '{', '[':
			d.opens = append(d.opens, d.end-1)
		case '}', ']':
			d.opens = d.opens[:len(d.opens)-1]
		}
	}
}

// sep is where the token after offset i starts: past white space and
// the ',' or ':' before it.
func (d *describer) sep(i int) int {
	w := d.Window
	i = skipSpace(w, i)
	if i < len(w) && (w[i] == ',' || w[i] == ':') {
		i = skipSpace(w, i+1)
	}
	return i
}

// depth and innermost are the state at the fault: the open objects and
// arrays, and the innermost one's kind and count of names and values
// read (jsontext's StackIndex).
func (d *describer) depth() int {
	n := d.Dec.StackDepth()
	if d.read {
		n += d.rep.StackDepth()
	}
	return n
}

func (d *describer) innermost() (jsontext.Kind, int64) {
	if d.read && d.rep.StackDepth() > 0 {
		return d.rep.StackIndex(d.rep.StackDepth())
	}
	kind, n := d.Dec.StackIndex(d.Dec.StackDepth())
	if d.read { // a whole value read in the decoder's innermost
		_, values := d.rep.StackIndex(0)
		n += values
	}
	return kind, n
}

// prev is the last byte before the fault that is not white space, 0 at
// the input's start; when it is before Window, a stand-in of its kind
// from the state: the opener of the innermost object or array, '"' for
// a member name, 'v' for the end of a value.
func (d *describer) prev() byte {
	for i := d.at - 1; i >= 0; i-- {
		if !isSpace(d.Window[i]) {
			return d.Window[i]
		}
	}
	kind, n := d.innermost()
	switch {
	case d.Start == 0 || d.depth() == 0:
		return 0
	case n == 0:
		return byte(kind)
	case kind == '{' && n%2 == 1:
		return '"'
	}
	return 'v'
}

func (d *describer) fail(at int, words string) Fault {
	return Fault{At: d.Base + d.Start + int64(at), Ptr: string(d.se.JSONPointer), Words: words}
}

// ends describes an input that ends before its value is complete.
func (d *describer) ends() Fault {
	w, end := d.Window, len(d.Window)
	start := d.sep(d.end)
	kind, _ := d.innermost()
	depth := d.depth()
	switch {
	case start < end && w[start] == '"' && d.Whole:
		return d.fail(end, "the input ends before the string that starts at byte "+itoa(d.Base+d.Start+int64(start))+` is closed by '"'`)
	case start < end && w[start] == '"':
		return d.fail(end, `the input ends before a string is closed by '"'`)
	case depth > 0 && d.open(depth) >= 0:
		return d.fail(end, "the input ends before the "+noun(kind)+" opened at byte "+itoa(d.Base+d.open(depth))+" is closed")
	case depth > 0:
		return d.fail(end, "the input ends before an "+noun(kind)+" is closed")
	}
	return d.fail(end, "the input ends before the value is complete")
}

// open is the offset of the depth'th open object or array, -1 when the
// reader does not track it.
func (d *describer) open(depth int) int64 {
	if !d.Whole {
		return -1
	}
	outer := d.Dec.StackDepth()
	if depth > outer {
		return d.Start + int64(d.opens[depth-outer-1])
	}
	if len(d.Opens) != outer {
		return -1
	}
	return d.Opens[depth-1]
}

// fault describes a fault at a byte of Window.
func (d *describer) fault() Fault {
	w, at := d.Window, d.at
	if at >= len(w) { // jsontext places every other fault at a byte; this keeps w[at] in bounds if it ever does not
		return d.fail(at, "the input is not JSON")
	}
	// start is where the token at fault starts: after the last one read
	// whole and the ',' or ':' that follows it.
	start := d.sep(d.end)
	switch {
	case start < at && w[start] == '"':
		return d.fail(at, d.inString(at))
	case start < at && (w[start] == '-' || isDigit(w[start])):
		return d.fail(d.valueAt(start, at), badNumber)
	case start < at:
		return d.fail(d.valueAt(start, at), badLiteral)
	}
	depth := d.depth()
	kind, n := d.innermost()
	c, prev, next := w[at], d.prev(), skipSpace(w, at+1)
	switch {
	case (c == '{' || c == '[') && depth == MaxNesting:
		return d.fail(at, "objects and arrays nested deeper than "+itoa(MaxNesting)+" levels")
	case c == ',' && depth > 0 && n > 0 && (kind != '{' || n%2 == 0) && next < len(w) && (w[next] == ']' || w[next] == '}'):
		return d.fail(at, "a trailing comma: the "+noun(kind)+"'s last "+item(kind)+" is followed by ',' and then "+d.char(next))
	case kind == '{' && n%2 == 0 && (prev == '{' || prev == ','):
		return d.fail(at, "a member name must be a string in double quotes, not "+d.char(at))
	case kind == '{' && n%2 == 1 && prev != ':':
		return d.fail(at, "a ':' must follow the member name "+d.name(d.se.JSONPointer.LastToken())+", not "+d.char(at))
	case c == 0xEF && (prev == ':' || prev == '[' || prev == ',' || depth == 0):
		// The first of a byte order mark's bytes is all a streaming
		// reader is sure to hold.
		return d.fail(at, "the byte 0xEF where a value should start (if it begins a byte order mark, U+FEFF: only the input's first bytes may be one)")
	case prev == ':' || prev == '[' || prev == ',' || depth == 0:
		return d.fail(at, d.char(at)+" cannot start a value (a value is a string in double quotes, a number, true, false, null, an object or an array)")
	}
	// After a whole value: what follows it is neither ',' nor the closer.
	if at == d.end && (isNumber(c) || isLetter(c)) {
		v, ok := d.valueStart()
		switch {
		case ok && (w[v] == '-' || isDigit(w[v])):
			f := d.fail(d.valueAt(v, at), badNumber) // a leading zero, or a second fraction or exponent
			f.Ptr = d.valuePtr()
			return f
		case ok && isLetter(w[v]):
			f := d.fail(d.valueAt(v, at), badLiteral)
			f.Ptr = d.valuePtr()
			return f
		case !ok: // the value is no longer held: name both faults it can be
			fault := "the value is not written as JSON writes it"
			if isDigit(c) {
				fault = "a number has a leading zero"
			}
			return d.fail(at, d.char(at)+" follows "+article(item(kind))+"'s value directly: a ',' is missing, or "+fault)
		}
	}
	if isDigit(c) || bytes.IndexByte([]byte(`"{[-tfn`), c) >= 0 {
		return d.fail(at, "a ',' is missing between two "+item(kind)+"s of an "+noun(kind))
	}
	return d.fail(at, d.char(at)+" follows "+article(item(kind))+"; only ',' or "+closer(kind)+" can")
}

// valueAt is where a number or literal that starts at start is reported:
// at its start when every offset before the fault is the input's, else
// at the fault.
func (d *describer) valueAt(start, at int) int {
	if d.Whole {
		return start
	}
	return at
}

// valueStart is where the last token read whole starts when it is a
// number or literal (else its last byte), false when Window does not
// hold it.
func (d *describer) valueStart() (int, bool) {
	if !d.read && d.Start > 0 || d.end == 0 {
		return 0, false
	}
	w, i := d.Window, d.end
	for i > 0 && (isNumber(w[i-1]) || isLetter(w[i-1])) {
		i--
	}
	return min(i, d.end-1), true
}

// valuePtr is the pointer of the value the decoder read last.
func (d *describer) valuePtr() string {
	if d.read {
		return string(d.se.JSONPointer)
	}
	return string(d.Dec.StackPointer())
}

const (
	badNumber  = "a number not written as JSON writes numbers (digits, with no leading zero, no '+' and no bare '.')"
	badLiteral = "a value that is not JSON (only true, false and null are written without quotes)"
)

// inString says what is wrong with the string character at Window[at].
func (d *describer) inString(at int) string {
	switch c := d.Window[at]; {
	case c == '\\':
		return d.badEscape(at)
	case c < ' ':
		return "a string holds the control character U+" + hex(uint64(c), 4) + "; inside a string it must be written as an escape such as \\n or \\u" + hex(uint64(c), 4)
	case c >= utf8.RuneSelf:
		return "a string holds the byte 0x" + hex(uint64(c), 2) + ", which is not UTF-8"
	}
	return "a string that is not JSON"
}

// badEscape says what is wrong with the escape at Window[at]. jsontext
// judged it, so the bytes it judged it by are held.
func (d *describer) badEscape(at int) string {
	w := d.Window
	if at+1 >= len(w) {
		return "a string ends in a backslash"
	}
	if c := w[at+1]; c != 'u' {
		what := "\\" + string(c)
		if c <= ' ' || c >= utf8.RuneSelf {
			what = "a backslash followed by " + d.char(at+1)
		}
		return "a string holds " + what + ", not an escape JSON has (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"
	}
	u, ok := hex4(w, at)
	switch {
	case !ok:
		return "a \\u escape must have four hexadecimal digits"
	case u >= 0xDC00 && u <= 0xDFFF:
		return "a string holds \\u" + hex(u, 4) + ", the second half of a surrogate pair without the first: it is no character"
	case u >= 0xD800 && u <= 0xDBFF:
		return "a string holds \\u" + hex(u, 4) + ", the first half of a surrogate pair without the second: it is no character"
	}
	return "a string that is not JSON"
}

// hex4 is the value of the \uXXXX escape at b[at].
func hex4(b []byte, at int) (uint64, bool) {
	if at+6 > len(b) {
		return 0, false
	}
	u, err := strconv.ParseUint(string(b[at+2:at+6]), 16, 16)
	return u, err == nil
}

// Char names the character at b[i] for a message, b being the whole
// input: as 'x', a control character or one that is not ASCII by its
// code point, a byte that is not UTF-8 as that byte.
func Char(b []byte, i int) string { return char(b, i, true) }

// char names the character at Window[i] for a message: one that is not
// ASCII by its code point when Window is the whole input, else by its
// first byte alone (what follows it may not be held yet).
func (d *describer) char(i int) string { return char(d.Window, i, d.Whole) }

func char(b []byte, i int, whole bool) string {
	c := b[i]
	switch {
	case c == '\'':
		return `"'"`
	case c > ' ' && c < utf8.RuneSelf:
		return "'" + string(c) + "'"
	case c < utf8.RuneSelf:
		return "the control character U+" + hex(uint64(c), 4)
	}
	if !whole {
		return "the byte 0x" + hex(uint64(c), 2)
	}
	if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError || n > 1 {
		return "U+" + hex(uint64(r), 4)
	}
	return "the byte 0x" + hex(uint64(c), 2) + ", which is not UTF-8"
}

// name writes a member name for a message, as JSON writes it.
func (d *describer) name(s string) string {
	q, err := jsontext.AppendQuote(nil, s)
	if err != nil { // a name jsontext read is UTF-8; this keeps a hand-built one in words
		q = strconv.AppendQuote(nil, s)
	}
	if d.Name != nil {
		return d.Name(string(q))
	}
	return string(q)
}

// The words are built with strconv, not fmt: the WebAssembly module
// links this package, and fmt's printer would add 85 KB to it
// (js/wasm's TestWasmLinksNoFmtPrinting).

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// hex writes u in upper-case hexadecimal, at least digits long.
func hex(u uint64, digits int) string {
	h := strings.ToUpper(strconv.FormatUint(u, 16))
	if len(h) < digits {
		h = strings.Repeat("0", digits-len(h)) + h
	}
	return h
}

func noun(kind jsontext.Kind) string {
	if kind == '{' {
		return "object"
	}
	return "array"
}

func item(kind jsontext.Kind) string {
	if kind == '{' {
		return "member"
	}
	return "item"
}

func closer(kind jsontext.Kind) string {
	if kind == '{' {
		return "'}'"
	}
	return "']'"
}

func article(noun string) string {
	if noun == "item" {
		return "an " + noun
	}
	return "a " + noun
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isNumber(c byte) bool {
	return isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}
