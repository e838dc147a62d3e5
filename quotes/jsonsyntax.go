package quotes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/go-json-experiment/json/jsontext"
)

// maxNesting is how deep objects and arrays may nest in a JSON input:
// jsontext's own bound, which the engine's request scanner shares.
const maxNesting = 10000

// strict are the options of the validation: RFC 8259 and I-JSON (RFC
// 7493), jsontext's defaults, written out because the readers' contract
// (spec §5.13) depends on them.
var strict = []jsontext.Options{jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false)}

// syntax is a JSON input found not to be JSON: what is wrong, in words a
// person reads without knowing a parser, and where (byte offset from the
// start of the input, and the JSON Pointer of the value it is in).
type syntax struct {
	what string
	at   int
	ptr  string
}

func (e *syntax) String() string {
	s := e.what + " at byte " + strconv.Itoa(e.at)
	if e.ptr != "" {
		s += " (in " + citecheck.Echo(pointerText(e.ptr)).String() + ")"
	}
	return s
}

// checkJSON returns nil when b is one JSON text as RFC 8259 and I-JSON
// define it, else what is wrong. base is added to every offset it
// reports, so that offsets count from the start of the input the caller
// was given (before a byte order mark it dropped). With w, it counts a
// step per byte of each token read, so that w polls its caller at least
// every pollSteps bytes plus one token; once w.err is set it returns nil
// at once, and the caller is to look at w.err.
//
// jsontext finds the fault; the message is ours, written from the bytes
// around the fault and the decoder's state there, so that it names no
// library and says what a person would fix.
//
// Cost: linear in len(b); memory the offsets of the open objects and
// arrays (8 bytes each, at most maxNesting) and jsontext's member names
// of the open objects, at most len(b).
func checkJSON(b []byte, base int, w *workCounter) *syntax {
	dec := jsontext.NewDecoder(bytes.NewBuffer(b), strict...)
	var opens []int
	counted := 0
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return describe(b, base, dec, opens, err)
		}
		if w != nil {
			at := int(dec.InputOffset())
			if w.add(at - counted); w.err != nil {
				return nil
			}
			counted = at
		}
		switch tok.Kind() {
		case '{', '[':
			opens = append(opens, int(dec.InputOffset())-1)
		case '}', ']':
			opens = opens[:len(opens)-1]
		}
		if dec.StackDepth() == 0 {
			break
		}
	}
	// The decoder reads a stream of values; one JSON text is one value.
	if i := skipSpace(b, int(dec.InputOffset())); i < len(b) {
		return &syntax{what: "more follows the end of the JSON value: " + char(b, i), at: base + i}
	}
	return nil
}

// describe writes what jsontext refused, err, at the state dec was left
// in (the last token it read whole); opens are the offsets of the open
// objects and arrays.
func describe(b []byte, base int, dec *jsontext.Decoder, opens []int, err error) *syntax {
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) { // io.EOF: nothing but white space
		return &syntax{what: "the input ends before a value", at: base + len(b)}
	}
	at, ptr := int(se.ByteOffset), string(se.JSONPointer)
	fail := func(at int, what string) *syntax { return &syntax{what: what, at: base + at, ptr: ptr} }
	depth := dec.StackDepth()
	kind, n := dec.StackIndex(depth)
	end := int(dec.InputOffset())
	// start is where the token at fault starts: after the last one read
	// whole and the ',' or ':' that follows it.
	start := skipSpace(b, end)
	if start < len(b) && (b[start] == ',' || b[start] == ':') {
		start = skipSpace(b, start+1)
	}
	switch {
	case se.Err == jsontext.ErrDuplicateName:
		return fail(at, "the member "+quoteName(se.JSONPointer.LastToken())+" appears twice in one object")
	case errors.Is(se.Err, io.ErrUnexpectedEOF):
		switch {
		case start < len(b) && b[start] == '"':
			return fail(len(b), fmt.Sprintf(`the input ends before the string that starts at byte %d is closed by '"'`, base+start))
		case depth > 0:
			return fail(len(b), fmt.Sprintf("the input ends before the %s opened at byte %d is closed", noun(kind), base+opens[depth-1]))
		}
		return fail(len(b), "the input ends before the value is complete")
	case at >= len(b): // jsontext places every other fault at a byte; this keeps b[at] in bounds if it ever does not
		return fail(len(b), "the input is not JSON")
	case start < at && b[start] == '"':
		return fail(at, inString(b, at))
	case start < at && (b[start] == '-' || isDigit(b[start])):
		return fail(start, badNumber)
	case start < at:
		return fail(start, badLiteral)
	}
	c, prev, next := b[at], lastByte(b, at), skipSpace(b, at+1)
	switch {
	case (c == '{' || c == '[') && depth == maxNesting:
		return fail(at, fmt.Sprintf("objects and arrays nested deeper than %d", maxNesting))
	case c == ',' && n > 0 && next < len(b) && (b[next] == ']' || b[next] == '}'):
		return fail(at, fmt.Sprintf("a trailing comma: the %s's last %s is followed by ',' and then %s", noun(kind), item(kind), char(b, next)))
	case kind == '{' && n%2 == 0 && (prev == '{' || prev == ','):
		return fail(at, "a member name must be a string in double quotes, not "+char(b, at))
	case kind == '{' && n%2 == 1 && prev != ':':
		return fail(at, fmt.Sprintf("a ':' must follow the member name %s, not %s", quoteName(se.JSONPointer.LastToken()), char(b, at)))
	case prev == ':' || prev == '[' || prev == ',' || depth == 0:
		return fail(at, char(b, at)+" cannot start a value (a value is a string in double quotes, a number, true, false, null, an object or an array)")
	}
	// After a whole value: what follows it is neither ',' nor the closer.
	ptr = string(dec.StackPointer())
	if v := valueStart(b, end); at == end && (isNumber(c) || isLetter(c)) {
		switch {
		case b[v] == '-' || isDigit(b[v]):
			return fail(v, badNumber) // a leading zero, or a second fraction or exponent
		case isLetter(b[v]):
			return fail(v, badLiteral)
		}
	}
	ptr = string(se.JSONPointer) // the object or array
	if isDigit(c) || bytes.IndexByte([]byte(`"{[-tfn`), c) >= 0 {
		return fail(at, fmt.Sprintf("a ',' is missing between two %ss of an %s", item(kind), noun(kind)))
	}
	if kind == '{' {
		return fail(at, char(b, at)+" follows a member; only ',' or '}' can")
	}
	return fail(at, char(b, at)+" follows an item; only ',' or ']' can")
}

const (
	badNumber  = "a number not written as JSON writes numbers (digits, with no leading zero, no '+' and no bare '.')"
	badLiteral = "a value that is not JSON (only true, false and null are written without quotes)"
)

// inString says what is wrong with the string character at b[at].
func inString(b []byte, at int) string {
	switch c := b[at]; {
	case c == '\\':
		return badEscape(b, at)
	case c < ' ':
		return fmt.Sprintf("a string holds the control character U+%04X; inside a string it must be written as an escape such as \\n or \\u%04X", c, c)
	case c >= utf8.RuneSelf:
		return fmt.Sprintf("a string holds the byte 0x%02X, which is not UTF-8", c)
	}
	return "a string that is not JSON"
}

// badEscape says what is wrong with the escape at b[at].
func badEscape(b []byte, at int) string {
	if c := b[at+1]; c != 'u' {
		what := "\\" + string(c)
		if c <= ' ' || c >= utf8.RuneSelf {
			what = "a backslash followed by " + char(b, at+1)
		}
		return "a string holds " + what + ", not an escape JSON has (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"
	}
	u, ok := hex4(b, at)
	switch {
	case !ok:
		return "a \\u escape must have four hexadecimal digits"
	case u >= 0xDC00 && u <= 0xDFFF:
		return fmt.Sprintf("a string holds \\u%04X, the second half of a surrogate pair without the first: it is no character", u)
	case u >= 0xD800 && u <= 0xDBFF:
		return fmt.Sprintf("a string holds \\u%04X, the first half of a surrogate pair without the second: it is no character", u)
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

// char names the character at b[i] for a message.
func char(b []byte, i int) string {
	c := b[i]
	switch {
	case c == '\'':
		return `"'"`
	case c > ' ' && c < utf8.RuneSelf:
		return "'" + string(c) + "'"
	case c < utf8.RuneSelf:
		return fmt.Sprintf("the control character U+%04X", c)
	}
	r, n := utf8.DecodeRune(b[i:])
	if r == utf8.RuneError && n <= 1 {
		return fmt.Sprintf("the byte 0x%02X, which is not UTF-8", c)
	}
	return fmt.Sprintf("U+%04X", r)
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

// lastByte is the last byte before b[i] that is not white space, 0 when
// there is none.
func lastByte(b []byte, i int) byte {
	for i--; i >= 0; i-- {
		if !isSpace(b[i]) {
			return b[i]
		}
	}
	return 0
}

// valueStart is where the number or literal that ends at b[end] starts.
func valueStart(b []byte, end int) int {
	i := end
	for i > 0 && (isNumber(b[i-1]) || isLetter(b[i-1])) {
		i--
	}
	return min(i, end-1)
}

// quoteName writes a member name for a message, as JSON writes it.
func quoteName(name string) string {
	return citecheck.Echo(jsonenc.AppendString(nil, name)).String()
}

// node is a value of a JSON input that checkJSON has accepted, raw; raw
// is nil for a value that is not there. Its JSON Pointer is not built
// until a message needs it (ptr): a node knows only its parent and its
// name or index in it. w, when set, is polled as the items of arrays are
// read (items), and its children inherit it.
type node struct {
	raw  jsontext.Value
	up   *node  // the object or array it is in; nil for the top
	name string // its member name, in an object
	k    int    // its index, in an array
	r    *walker
}

// walker is what the walks of one input share: the workCounter items
// poll (nil: none), and the decoders of walks that have ended, for the
// next to reuse, so that reading an object costs no decoder of its own.
type walker struct {
	w    *workCounter
	free []*decoder
}

type decoder struct {
	dec jsontext.Decoder
	buf bytes.Buffer
}

// get returns a decoder reading raw, reused when one is free.
func (r *walker) get(raw []byte) *decoder {
	var d *decoder
	if r != nil && len(r.free) > 0 {
		d, r.free = r.free[len(r.free)-1], r.free[:len(r.free)-1]
	} else {
		d = new(decoder)
	}
	d.buf = *bytes.NewBuffer(raw)
	d.dec.Reset(&d.buf, jsontext.AllowDuplicateNames(true))
	return d
}

// put makes d free for the next walk.
func (r *walker) put(d *decoder) {
	if r != nil {
		r.free = append(r.free, d)
	}
}

// ptr is the node's JSON Pointer, as a message shows it (pointerText).
// Cost: linear in its length and depth.
func (n node) ptr() string { return pointerText(n.rawPtr()) }

func (n node) rawPtr() string {
	if n.up == nil {
		return ""
	}
	if n.up.raw[0] == '{' {
		return n.up.rawPtr() + "/" + jsonenc.EscapePointer(n.name)
	}
	return n.up.rawPtr() + "/" + strconv.Itoa(n.k)
}

// pointerText is JSON Pointer p as a message shows it: as it is, or,
// when a member name in it holds a control character (a line end would
// break the message's one line), as a JSON string, escapes and all.
func pointerText(p string) string {
	if strings.IndexFunc(p, unicode.IsControl) < 0 {
		return p
	}
	return string(jsonenc.AppendString(nil, p))
}

// kind is the value's kind as jsonenc.KindName takes it.
func (n node) kind() byte {
	if len(n.raw) == 0 {
		return 0
	}
	switch c := n.raw[0]; c {
	case '{', '[', '"', 'n', 't', 'f':
		return c
	}
	return '0'
}

// text is the value of a string.
func (n node) text() string {
	s, _ := jsontext.AppendUnquote(nil, n.raw)
	return string(s)
}

// walk calls f with each member (k counts from 0, name is its name) or
// item (name "") of n, an object or array, in order, and stops at the
// first error. checkJSON has accepted the input, so the reads cannot
// fail; should one, the walk ends there.
//
// Cost: linear in len(n.raw): jsontext reads the value once more,
// without the duplicate-name check checkJSON has made; one allocation for
// the walk (the parent its children point to), and one for each member
// name.
func (n node) walk(f func(k int, name string, v node) error) error {
	up := &n
	d := n.r.get(n.raw)
	defer n.r.put(d)
	dec := &d.dec
	dec.ReadToken()
	for k := 0; ; k++ {
		if kind := dec.PeekKind(); kind == 0 || kind == '}' || kind == ']' {
			return nil
		}
		name := ""
		if n.raw[0] == '{' {
			t, _ := dec.ReadToken()
			name = t.String()
		}
		v, err := dec.ReadValue()
		if err != nil {
			return nil
		}
		if err := f(k, name, node{raw: v, up: up, name: name, k: k, r: n.r}); err != nil {
			return err
		}
	}
}

// members calls f with each member of object n (none when n is not an
// object), in order, and stops at the first error. Cost: linear in the
// object's bytes.
func (n node) members(f func(name string, v node) error) error {
	if n.kind() != '{' {
		return nil
	}
	return n.walk(func(_ int, name string, v node) error { return f(name, v) })
}

// items calls f with each item of array n (none when n is not an array),
// in order, and stops at the first error, or at the first error of the
// workCounter's
// poll, which it counts a step per byte of each item. Cost: linear in the
// array's bytes.
func (n node) items(f func(k int, v node) error) error {
	if n.kind() != '[' {
		return nil
	}
	return n.walk(func(k int, _ string, v node) error {
		if n.r != nil && n.r.w != nil {
			w := n.r.w
			if w.add(len(v.raw)); w.err != nil {
				return w.err
			}
		}
		return f(k, v)
	})
}
