package quotes

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/go-json-experiment/json/jsontext"
)

// maxNesting is how deep objects and arrays may nest in a JSON input, as
// deep as the engine's request scanner allows.
const maxNesting = 10000

// syntax is a JSON input found not to be JSON: what is wrong, in words a
// person reads without knowing a parser, and where (byte offset from the
// start of the input, and the JSON Pointer of the object or array it is
// in, or of the member whose value it is in).
type syntax struct {
	what string
	at   int
	ptr  string
}

func (e *syntax) String() string {
	s := e.what + " at byte " + fmt.Sprint(e.at)
	if e.ptr != "" {
		s += " (in " + citecheck.Echo(e.ptr).String() + ")"
	}
	return s
}

// frame is an open object or array of the validator.
type frame struct {
	object   bool
	n        int             // members or items read whole so far
	name     string          // the name of the member being read
	inMember bool            // its name has been read, its value not yet whole
	names    map[string]bool // the member names seen, for duplicates
}

// validator checks that b is one JSON text as RFC 8259 and I-JSON (RFC
// 7493) define it: UTF-8, no unpaired surrogate escape, no member name
// twice in one object, white space only space, tab, LF and CR, nothing
// after the value. base is added to every offset it reports, so that
// offsets count from the start of the input the caller was given (before
// a byte order mark it dropped).
type validator struct {
	b     []byte
	base  int
	stack []frame
}

// checkJSON returns nil when b is one JSON text, else what is wrong.
//
// Cost: linear in len(b): each byte is looked at once; memory is the
// member names of the open objects, at most len(b).
func checkJSON(b []byte, base int) *syntax {
	v := &validator{b: b, base: base}
	i, err := v.value(v.ws(0))
	if err != nil {
		return err
	}
	if i = v.ws(i); i < len(b) {
		return v.fail(i, "more follows the end of the JSON value: "+v.char(i))
	}
	return nil
}

// path is the JSON Pointer of the values being read in the first depth
// open objects and arrays: an array's item being read, an object's member
// whose name has been read.
func (v *validator) path(depth int) string {
	var sb strings.Builder
	for _, f := range v.stack[:depth] {
		switch {
		case !f.object:
			fmt.Fprintf(&sb, "/%d", f.n)
		case f.inMember:
			sb.WriteString("/" + jsonenc.EscapePointer(f.name))
		}
	}
	return sb.String()
}

// pointer is the JSON Pointer of the value being read.
func (v *validator) pointer() string { return v.path(len(v.stack)) }

// container is the JSON Pointer of the innermost open object or array.
func (v *validator) container() string { return v.path(max(len(v.stack)-1, 0)) }

func (v *validator) fail(i int, what string) *syntax {
	return &syntax{what: what, at: v.base + i, ptr: v.pointer()}
}

func (v *validator) failIn(i int, what string) *syntax {
	return &syntax{what: what, at: v.base + i, ptr: v.container()}
}

// char names the character at b[i] for a message.
func (v *validator) char(i int) string {
	c := v.b[i]
	switch {
	case c == '\'':
		return `"'"`
	case c > ' ' && c < utf8.RuneSelf:
		return "'" + string(c) + "'"
	case c < utf8.RuneSelf:
		return fmt.Sprintf("the control character U+%04X", c)
	}
	r, n := utf8.DecodeRune(v.b[i:])
	if r == utf8.RuneError && n <= 1 {
		return fmt.Sprintf("the byte 0x%02X, which is not UTF-8", c)
	}
	return fmt.Sprintf("U+%04X", r)
}

func (v *validator) ws(i int) int {
	for i < len(v.b) && (v.b[i] == ' ' || v.b[i] == '\t' || v.b[i] == '\n' || v.b[i] == '\r') {
		i++
	}
	return i
}

// ended is the failure of input that ends before what is open is closed.
func (v *validator) ended(what string) *syntax {
	return &syntax{what: "the input ends before " + what, at: v.base + len(v.b), ptr: v.pointer()}
}

func (v *validator) value(i int) (int, *syntax) {
	if i == len(v.b) {
		return 0, v.ended("a value")
	}
	switch c := v.b[i]; {
	case c == '{' || c == '[':
		return v.open(i)
	case c == '"':
		return v.str(i)
	case c == '-' || c >= '0' && c <= '9':
		return v.number(i)
	case c == 't':
		return v.literal(i, "true")
	case c == 'f':
		return v.literal(i, "false")
	case c == 'n':
		return v.literal(i, "null")
	}
	return 0, v.fail(i, v.char(i)+" cannot start a value (a value is a string in double quotes, a number, true, false, null, an object or an array)")
}

func (v *validator) literal(i int, lit string) (int, *syntax) {
	end := i
	for end < len(v.b) && end-i < len(lit) && v.b[end] == lit[end-i] {
		end++
	}
	if end-i < len(lit) {
		if end == len(v.b) {
			return 0, v.ended("the value " + lit + " is complete")
		}
		return 0, v.fail(i, "a value that is not JSON (only true, false and null are written without quotes)")
	}
	return end, nil
}

// open reads an object or an array, nested as deep as maxNesting.
func (v *validator) open(i int) (int, *syntax) {
	if len(v.stack) == maxNesting {
		return 0, v.fail(i, fmt.Sprintf("objects and arrays nested deeper than %d", maxNesting))
	}
	object := v.b[i] == '{'
	closer, noun, member := byte(']'), "array", "item"
	if object {
		closer, noun, member = '}', "object", "member"
	}
	v.stack = append(v.stack, frame{object: object})
	fi := len(v.stack) - 1 // not a pointer: nested values grow the stack
	start := i
	i = v.ws(i + 1)
	if i < len(v.b) && v.b[i] == closer {
		v.stack = v.stack[:len(v.stack)-1]
		return i + 1, nil
	}
	for {
		if object {
			if i == len(v.b) {
				return 0, v.ended(fmt.Sprintf("the object opened at byte %d is closed", v.base+start))
			}
			if v.b[i] != '"' {
				return 0, v.failIn(i, "a member name must be a string in double quotes, not "+v.char(i))
			}
			end, err := v.str(i)
			if err != nil {
				return 0, err
			}
			name := unquote(v.b[i:end])
			if v.stack[fi].names == nil {
				v.stack[fi].names = map[string]bool{}
			}
			v.stack[fi].name, v.stack[fi].inMember = name, true
			if v.stack[fi].names[name] {
				return 0, v.fail(i, fmt.Sprintf("the member %s appears twice in one object", quoteName(name)))
			}
			v.stack[fi].names[name] = true
			i = v.ws(end)
			if i == len(v.b) {
				return 0, v.ended("the value of " + quoteName(name))
			}
			if v.b[i] != ':' {
				return 0, v.fail(i, fmt.Sprintf("a ':' must follow the member name %s, not %s", quoteName(name), v.char(i)))
			}
			i = v.ws(i + 1)
		}
		end, err := v.value(i)
		if err != nil {
			return 0, err
		}
		i = v.ws(end)
		v.stack[fi].n++
		v.stack[fi].inMember = false
		if i == len(v.b) {
			return 0, v.ended(fmt.Sprintf("the %s opened at byte %d is closed", noun, v.base+start))
		}
		switch c := v.b[i]; {
		case c == closer:
			v.stack = v.stack[:len(v.stack)-1]
			return i + 1, nil
		case c == ',':
			comma := i
			i = v.ws(i + 1)
			if i < len(v.b) && (v.b[i] == '}' || v.b[i] == ']') {
				return 0, v.failIn(comma, fmt.Sprintf("a trailing comma: the %s's last %s is followed by ',' and then %s", noun, member, v.char(i)))
			}
		case c == '"' || c == '{' || c == '[' || c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n':
			return 0, v.failIn(i, fmt.Sprintf("a ',' is missing between two %ss of an %s", member, noun))
		default:
			return 0, v.failIn(i, fmt.Sprintf("%s follows a %s; only ',' or '%c' can", v.char(i), member, closer))
		}
	}
}

func (v *validator) number(i int) (int, *syntax) {
	start := i
	digits := func() int {
		n := 0
		for i < len(v.b) && v.b[i] >= '0' && v.b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	bad := func() (int, *syntax) {
		if i == len(v.b) {
			return 0, v.ended("the number that starts at byte " + fmt.Sprint(v.base+start) + " is complete")
		}
		return 0, v.fail(start, "a number not written as JSON writes numbers (digits, with no leading zero, no '+' and no bare '.')")
	}
	if v.b[i] == '-' {
		i++
	}
	if i < len(v.b) && v.b[i] == '0' {
		i++
	} else if digits() == 0 {
		return bad()
	}
	if i < len(v.b) && v.b[i] == '.' {
		i++
		if digits() == 0 {
			return bad()
		}
	}
	if i < len(v.b) && (v.b[i] == 'e' || v.b[i] == 'E') {
		i++
		if i < len(v.b) && (v.b[i] == '+' || v.b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return bad()
		}
	}
	if i < len(v.b) && (v.b[i] >= '0' && v.b[i] <= '9' || v.b[i] == '.' || v.b[i] == 'e' || v.b[i] == 'E') {
		return bad() // a leading zero, or a second fraction or exponent
	}
	return i, nil
}

// str reads a string: UTF-8, control characters escaped, every escape
// one of JSON's, and every \u escape of a surrogate one half of a pair.
func (v *validator) str(i int) (int, *syntax) {
	start := i
	i++
	for {
		if i == len(v.b) {
			return 0, v.ended(fmt.Sprintf("the string that starts at byte %d is closed by '\"'", v.base+start))
		}
		c := v.b[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			n, err := v.escape(i)
			if err != nil {
				return 0, err
			}
			i += n
		case c < ' ':
			return 0, v.fail(i, fmt.Sprintf("a string holds the control character U+%04X; inside a string it must be written as an escape such as \\n or \\u%04X", c, c))
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(v.b[i:])
			if r == utf8.RuneError && n <= 1 {
				return 0, v.fail(i, fmt.Sprintf("a string holds the byte 0x%02X, which is not UTF-8", c))
			}
			i += n
		}
	}
}

// escape reads the escape at b[i] ('\\') and returns its length.
func (v *validator) escape(i int) (int, *syntax) {
	if i+1 == len(v.b) {
		return 0, v.ended("the escape at byte " + fmt.Sprint(v.base+i) + " is complete")
	}
	switch v.b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case 'u':
	default:
		return 0, v.fail(i, fmt.Sprintf("a string holds \\%s, not an escape JSON has (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", v.charName(i+1)))
	}
	u, ok := v.hex(i)
	if !ok {
		return 0, v.fail(i, "a \\u escape must have four hexadecimal digits")
	}
	switch {
	case u >= 0xDC00 && u <= 0xDFFF:
		return 0, v.fail(i, fmt.Sprintf("a string holds \\u%04X, the second half of a surrogate pair without the first: it is no character", u))
	case u >= 0xD800 && u <= 0xDBFF:
		if lo, ok := v.hex(i + 6); !ok || v.b[i+6] != '\\' || lo < 0xDC00 || lo > 0xDFFF {
			return 0, v.fail(i, fmt.Sprintf("a string holds \\u%04X, the first half of a surrogate pair without the second: it is no character", u))
		}
		return 12, nil
	}
	return 6, nil
}

// charName is the character at b[i] as it may follow a backslash.
func (v *validator) charName(i int) string {
	r, _ := utf8.DecodeRune(v.b[i:])
	if r > ' ' && r != utf8.RuneError {
		return string(r)
	}
	return fmt.Sprintf("U+%04X", r)
}

// hex reads the \uXXXX escape at b[i].
func (v *validator) hex(i int) (uint16, bool) {
	if i+6 > len(v.b) || v.b[i] != '\\' || v.b[i+1] != 'u' {
		return 0, false
	}
	var u uint16
	for _, c := range v.b[i+2 : i+6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		u = u<<4 | uint16(c)
	}
	return u, true
}

// unquote is the text of a valid JSON string token.
func unquote(tok []byte) string {
	if len(tok) >= 2 && !strings.ContainsRune(string(tok[1:len(tok)-1]), '\\') {
		return string(tok[1 : len(tok)-1])
	}
	s, _ := jsontext.AppendUnquote(nil, tok)
	return string(s)
}

// quoteName writes a member name for a message, as JSON writes it.
func quoteName(name string) string {
	return citecheck.Echo(jsonenc.AppendString(nil, name)).String()
}

// node is a value of a JSON input that checkJSON has accepted: b[start:end],
// at JSON Pointer ptr.
type node struct {
	b          []byte
	start, end int
	ptr        string
}

// kind is the value's kind as jsonenc.KindName takes it.
func (n node) kind() byte {
	switch c := n.b[n.start]; c {
	case '{', '[', '"', 'n', 't', 'f':
		return c
	}
	return '0'
}

func (n node) raw() []byte { return n.b[n.start:n.end] }

func (n node) text() string { return unquote(n.raw()) }

// skip returns the end of the valid value that starts at b[i] (after
// white space).
func skip(b []byte, i int) int {
	depth := 0
	for {
		switch c := b[i]; c {
		case '"':
			i++
			for b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		case ',', ':', ' ', '\t', '\n', '\r':
			i++
			continue
		default: // a number or a literal
			for i < len(b) && !strings.ContainsRune(",:]} \t\n\r", rune(b[i])) {
				i++
			}
		}
		if depth == 0 {
			return i
		}
	}
}

// members calls f with each member of object n (none when n is not an
// object), in order, and stops at
// the first error. Cost: linear in the object's bytes.
func (n node) members(f func(name string, v node) error) error {
	if n.start < 0 || n.kind() != '{' {
		return nil
	}
	v := &validator{b: n.b}
	i := v.ws(n.start + 1)
	for n.b[i] != '}' {
		end := skip(n.b, i)
		name := unquote(n.b[i:end])
		i = v.ws(v.ws(end) + 1)
		end = skip(n.b, i)
		if err := f(name, node{n.b, i, end, n.ptr + "/" + jsonenc.EscapePointer(name)}); err != nil {
			return err
		}
		i = v.ws(end)
		if n.b[i] == ',' {
			i = v.ws(i + 1)
		}
	}
	return nil
}

// items calls f with each item of array n (none when n is not an
// array), in order, and stops at the
// first error. Cost: linear in the array's bytes.
func (n node) items(f func(k int, v node) error) error {
	if n.start < 0 || n.kind() != '[' {
		return nil
	}
	v := &validator{b: n.b}
	i := v.ws(n.start + 1)
	for k := 0; n.b[i] != ']'; k++ {
		end := skip(n.b, i)
		if err := f(k, node{n.b, i, end, n.ptr + "/" + fmt.Sprint(k)}); err != nil {
			return err
		}
		i = v.ws(end)
		if n.b[i] == ',' {
			i = v.ws(i + 1)
		}
	}
	return nil
}
