// Package annotation reads W3C Web Annotations (and Hypothesis's, which
// follow the same model) as annotation stores export them, checks their
// text selectors with the citecheck engine, and writes them back with
// repaired selectors.
//
// Input may be one annotation, a JSON array of them, an AnnotationPage or
// AnnotationCollection (items, first), JSON Lines (any sequence of JSON
// values), or the Hypothesis API's search response ({"total", "rows"}).
// It is read as a stream: memory holds one annotation at a time, however
// large the export.
package annotation

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/citecheck/citecheck"
	"github.com/go-json-experiment/json/jsontext"
)

// invalid is the error of a value that is not an annotation, or of input
// that is not JSON: citecheck's one error type, invalid_input, its path
// the value's JSON Pointer.
func invalid(ptr, format string, args ...any) *citecheck.Error {
	return &citecheck.Error{Code: citecheck.CodeInvalidInput, Path: ptr, Message: fmt.Sprintf(format, args...)}
}

// Scanner reads annotations from a stream. Bytes it has read are kept only
// until the annotation that holds them is handed on, and, when the input
// is being rewritten (see [Scanner.Rewrite]), until they are copied out.
type Scanner struct {
	dec   *jsontext.Decoder
	tee   *tee
	value int // index of the top-level value being read
	index int // annotations and errors handed on so far
}

// NewScanner returns a Scanner reading r.
func NewScanner(r io.Reader) *Scanner {
	t := &tee{r: r, held: -1, copyAt: -1}
	// Names may repeat in the wild (stores are lenient); the first wins as
	// in most readers, so duplicates are not refused.
	return &Scanner{dec: jsontext.NewDecoder(t, jsontext.AllowDuplicateNames(true)), tee: t}
}

// Item is what Scan hands on for each annotation-sized value: an
// annotation, or the error that says why the value is not one (an
// invalid_input whose path is the value's JSON Pointer, and whose message
// starts with it).
type Item struct {
	Index      int   // position among the items, in input order, from 0
	Value      int   // index of the top-level JSON value that holds it
	Offset     int64 // byte offset of its first byte in the input
	Annotation *Annotation
	Err        *citecheck.Error
}

// Scan reads the input to its end and calls fn for every item in input
// order. It returns fn's first error, or a *citecheck.Error (invalid_input,
// naming the byte) when the input is not JSON (the items before it have
// been handed on), or nil.
//
// Cost: linear in the input; memory is one annotation plus the decoder's
// read-ahead.
func (s *Scanner) Scan(fn func(Item) error) error {
	for ; ; s.value++ {
		if s.dec.PeekKind() == 0 {
			_, err := s.dec.ReadToken()
			if err == io.EOF {
				return nil
			}
			return s.syntax(err)
		}
		if err := s.node("", fn); err != nil {
			var sf *scanFailure
			if errors.As(err, &sf) {
				return sf.err
			}
			return err
		}
	}
}

func (s *Scanner) syntax(err error) error {
	at, msg := s.dec.InputOffset(), err.Error()
	var se *jsontext.SyntacticError
	switch {
	case err == io.ErrUnexpectedEOF:
		msg = "unexpected end of input"
	case errors.As(err, &se):
		at, msg = se.ByteOffset, strings.TrimPrefix(se.Err.Error(), "jsontext: ")
	}
	return invalid("", "input is not JSON at byte %d (value %d): %s", at, s.value, msg)
}

// scanFailure carries fn's error through the walk untouched.
type scanFailure struct{ err error }

func (f *scanFailure) Error() string { return f.err.Error() }

func (s *Scanner) emit(fn func(Item) error, it Item) error {
	it.Index, it.Value = s.index, s.value
	s.index++
	if err := fn(it); err != nil {
		return &scanFailure{err}
	}
	// Nothing before the decoder's position is needed any more, unless it
	// is still to be copied out by a rewrite.
	s.tee.release(s.dec.InputOffset())
	return nil
}

// node reads the value at ptr: an array of items, an object (an annotation
// or a page of them), or anything else, which is an error item.
func (s *Scanner) node(ptr string, fn func(Item) error) error {
	switch k := s.dec.PeekKind(); k {
	case '[':
		if _, err := s.dec.ReadToken(); err != nil {
			return s.syntax(err)
		}
		for i := 0; s.dec.PeekKind() != ']'; i++ {
			if s.dec.PeekKind() == 0 {
				_, err := s.dec.ReadToken()
				return s.syntax(err)
			}
			if err := s.node(ptr+"/"+strconv.Itoa(i), fn); err != nil {
				return err
			}
		}
		if _, err := s.dec.ReadToken(); err != nil {
			return s.syntax(err)
		}
		return nil
	case '{':
		return s.object(ptr, fn)
	default:
		v, err := s.dec.ReadValue()
		if err != nil {
			return s.syntax(err)
		}
		at := s.dec.InputOffset() - int64(len(v))
		return s.emit(fn, Item{Offset: at, Err: invalid(ptr, "%s: not an annotation but %s", where(ptr), kindName(k))})
	}
}

// containerMembers are the members whose value holds further items: a
// page's or collection's items, a Hypothesis search response's rows, a
// collection's embedded first page.
func isContainerMember(name string, k jsontext.Kind) bool {
	return (name == "items" || name == "rows") && k == '[' || name == "first" && k == '{'
}

// object reads an object. If it has a container member, the items in it are
// streamed and the object's other members are skipped; otherwise the whole
// object is an annotation, parsed from its bytes once it is complete.
func (s *Scanner) object(ptr string, fn func(Item) error) error {
	if _, err := s.dec.ReadToken(); err != nil {
		return s.syntax(err)
	}
	// The bytes since the last item handed on are all still kept, '{' too.
	at := s.dec.InputOffset() - 1
	s.tee.hold(at)
	container := false
	var typ, first string // a collection's type and a first page given by reference
	for s.dec.PeekKind() == '"' {
		tok, err := s.dec.ReadToken()
		if err != nil {
			return s.syntax(err)
		}
		name, k := tok.String(), s.dec.PeekKind()
		switch {
		case isContainerMember(name, k):
			container = true
			s.tee.unhold()
			if err := s.node(ptr+"/"+escapePointer(name), fn); err != nil {
				return err
			}
		case (name == "type" || name == "first") && k == '"':
			v, err := s.dec.ReadToken()
			if err != nil {
				return s.syntax(err)
			}
			if name == "type" {
				typ = v.String()
			} else {
				first = v.String()
			}
		default:
			if err := s.dec.SkipValue(); err != nil {
				return s.syntax(err)
			}
		}
	}
	if _, err := s.dec.ReadToken(); err != nil { // '}', or the syntax error in its place
		return s.syntax(err)
	}
	if container {
		return nil
	}
	raw := s.tee.bytes(at, s.dec.InputOffset())
	s.tee.unhold()
	if (typ == "AnnotationCollection" || typ == "AnnotationPage") && first != "" {
		return s.emit(fn, Item{Offset: at, Err: invalid(ptr, "%s: an %s whose first page is only referenced (%q): pass the pages themselves", where(ptr), typ, first)})
	}
	a, e := parse(raw, ptr)
	if e != nil {
		return s.emit(fn, Item{Offset: at, Err: e})
	}
	a.Value, a.Offset = s.value, at
	return s.emit(fn, Item{Offset: at, Annotation: a})
}

// tee keeps a copy of the bytes the decoder reads, from the earliest offset
// still needed: an object whose kind is not yet known (hold), or the next
// byte a rewrite has to copy out (copyAt, -1 when not rewriting).
type tee struct {
	r      io.Reader
	buf    []byte
	base   int64 // input offset of buf[0]
	held   int64 // -1: nothing held
	copyAt int64
}

func (t *tee) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	return n, err
}

func (t *tee) hold(at int64) {
	if t.held < 0 || at < t.held {
		t.held = at
	}
}

func (t *tee) unhold() { t.held = -1 }

// release drops the bytes before upto that neither a hold nor a rewrite
// still needs.
func (t *tee) release(upto int64) {
	if t.held >= 0 {
		upto = min(upto, t.held)
	}
	if t.copyAt >= 0 {
		upto = min(upto, t.copyAt)
	}
	// Compacting only once half the buffer is dead keeps the copying
	// linear in the input, however many small items it holds.
	if n := upto - t.base; n > 0 && 2*n >= int64(len(t.buf)) {
		t.buf = t.buf[:copy(t.buf, t.buf[n:])]
		t.base = upto
	}
}

// bytes returns the input bytes [from, to), which must still be kept.
func (t *tee) bytes(from, to int64) []byte { return t.buf[from-t.base : to-t.base] }

// escapePointer escapes a member name for an RFC 6901 JSON Pointer.
func escapePointer(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}

// where names a pointer in a message: "value" for the whole value.
func where(ptr string) string {
	if ptr == "" {
		return "value"
	}
	return ptr
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "invalid JSON"
}

// unquote decodes a JSON string value.
func unquote(v []byte) string {
	if raw := v[1 : len(v)-1]; bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	b, _ := jsontext.AppendUnquote(nil, v) // v was validated by the decoder
	return string(b)
}
