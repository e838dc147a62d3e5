// Package annotation reads W3C Web Annotations (and Hypothesis's, which
// follow the same model) as annotation stores export them, checks their
// text selectors with the citecheck engine, and writes them back with
// repaired selectors.
//
// Input may be one annotation, a JSON array of them, an AnnotationPage or
// AnnotationCollection (items, first), JSON Lines (any sequence of JSON
// values; one right after a number or a literal only past white space),
// or the Hypothesis API's search response ({"total", "rows"}).
// It is read as a stream: memory holds one annotation at a time, however
// large the export.
package annotation

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strconv"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/citecheck/citecheck/internal/jsonwords"
	"github.com/go-json-experiment/json/jsontext"
)

// invalid is the error of a value that is not an annotation, or of input
// that is not JSON: citecheck's one error type, invalid_input, its path
// the value's JSON Pointer.
func invalid(ptr, msg string) *citecheck.Error {
	return &citecheck.Error{Code: citecheck.CodeInvalidInput, Path: ptr, Message: msg}
}

// readError is an error of the reader the input comes from, which
// errors.Is and errors.As see through.
type readError struct{ err error }

func (e readError) Error() string { return "reading the input: " + e.err.Error() }
func (e readError) Unwrap() error { return e.err }

// Scanner reads annotations from a stream, in one pass: each annotation's
// members are read as they stream past, those the checks do not use
// skipped without being held. Bytes it has read are kept only when the
// input is being rewritten (see [Scanner.Rewriting]), until they are
// copied out.
type Scanner struct {
	dec   *jsontext.Decoder
	tee   *tee
	value int // index of the top-level value being read
	// bare: the value before was a number or a literal, whose end only
	// white space or a delimiter after it marks (see apart).
	bare  bool
	index int    // annotations and errors handed on so far
	root  string // pointer prefix of every top-level value (parse's)
	next  string // the first page's "next" (see Next)
	// The first collection or search response whose "total" is more
	// than the items in it (-1 when none): totalRead is how many it held.
	total     int64
	totalRead int
}

// Next is the "next" of the first page read that has one (an
// AnnotationPage, or a collection's embedded first page): the input is
// then one page of a collection whose other items are at that IRI, not
// the whole of it. "" when no page read so far names a next one.
func (s *Scanner) Next() string { return s.next }

// NewScanner returns a Scanner reading r. A UTF-8 byte order mark at the
// start of r (as Windows tools write) is passed over, and counted in every
// offset; a rewrite keeps it.
func NewScanner(r io.Reader) *Scanner {
	t := &tee{r: r, copyAt: -1, lone: loneEscapes{first: -1}}
	// Duplicate names are the parser's to refuse, with the annotation's
	// pointer; the decoder's own refusal would stop the whole run.
	return &Scanner{dec: jsontext.NewDecoder(t, jsontext.AllowDuplicateNames(true)), tee: t, total: -1}
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
	// ID is the value's "id" (or "@id") when it is an object that is not
	// an annotation, so that an error item names what it refuses; "" when
	// it has none. An annotation's is its Annotation's.
	ID string
}

// Scan reads the input to its end and calls fn for every item in input
// order. It returns fn's first error, or a *citecheck.Error (invalid_input,
// naming the byte) when the input is not JSON (the items before it have
// been handed on), or the reader's error, or nil.
//
// Cost: linear in the input, whatever its nesting. Memory: the decoder's
// buffer, which holds the longest token (a string member) and read-ahead;
// each annotation's targets and selectors; its Raw when rewriting.
func (s *Scanner) Scan(fn func(Item) error) error {
	for ; ; s.value++ {
		if s.dec.PeekKind() == 0 {
			_, err := s.dec.ReadToken()
			if err == io.EOF {
				return nil
			}
			return s.syntax(err)
		}
		if err := s.apart(); err != nil {
			return err
		}
		switch s.dec.PeekKind() {
		case '0', 't', 'f', 'n':
			s.bare = true
		default:
			s.bare = false
		}
		if err := s.node(s.root, 0, fn); err != nil {
			var sf *scanFailure
			if errors.As(err, &sf) {
				return sf.err
			}
			return err
		}
	}
}

// apart refuses a top-level value that touches a number or a literal
// before it, with no white space between (0123, truefalse, 1"a"): where
// a number or a literal ends is then a guess (0123 would be read as 0 and
// 123), and inside a value the JSON reader refuses the same. A value
// after an object, an array or a string, which end plainly, may touch it
// ({}{}, as concatenated JSON is written, and "a""b"). Called with the
// next value peeked.
func (s *Scanner) apart() error {
	ahead := s.dec.UnreadBuffer()
	if s.value == 0 || !s.bare || len(ahead) == 0 {
		return nil
	}
	switch ahead[0] {
	case ' ', '\t', '\n', '\r':
		return nil
	}
	at := s.dec.InputOffset()
	return invalid("", "input is not JSON at byte "+strconv.FormatInt(at+s.tee.shift, 10)+" (line "+strconv.FormatInt(s.line(at), 10)+", value "+strconv.Itoa(s.value)+"): a value starts where the one before it ends, with no white space or line break between them")
}

// off is the decoder's position in the input (a byte order mark counted).
func (s *Scanner) off() int64 { return s.dec.InputOffset() + s.tee.shift }

func (s *Scanner) syntax(err error) error {
	if _, ok := err.(*scanFailure); ok {
		return err
	}
	if ce, ok := err.(*citecheck.Error); ok {
		return ce
	}
	var se *jsontext.SyntacticError
	if s.tee.err != nil && !errors.As(err, &se) {
		return readError{s.tee.err}
	}
	// The decoder's buffer holds the input from its position through the
	// fault, the tee's skipped bytes left out (shift counts them).
	f := jsonwords.Describe(err, jsonwords.Input{Dec: s.dec, Window: s.dec.UnreadBuffer(), Start: s.dec.InputOffset(), Base: s.tee.shift, Name: echo})
	return invalid("", "input is not JSON at byte "+strconv.FormatInt(f.At, 10)+" (line "+strconv.FormatInt(s.line(f.At-s.tee.shift), 10)+", value "+strconv.Itoa(s.value)+"): "+f.Words)
}

// echo repeats a member name in a message as every message repeats
// what the client sent.
func echo(name string) string { return citecheck.Echo(name).String() }

// line is the line, from 1, of the byte at the decoder's offset at, which
// must not be before the decoder's position: the tee has counted the
// newlines of every byte it passed on, and those it passed on from at
// onwards are still in the decoder's unread buffer.
func (s *Scanner) line(at int64) int64 {
	ahead := s.dec.UnreadBuffer()
	if i := at - s.dec.InputOffset(); i >= 0 && i <= int64(len(ahead)) {
		ahead = ahead[i:]
	}
	return 1 + s.tee.newlines - int64(bytes.Count(ahead, []byte{'\n'}))
}

// scanFailure carries fn's error through the walk untouched.
type scanFailure struct{ err error }

func (f *scanFailure) Error() string { return f.err.Error() }

func (s *Scanner) emit(fn func(Item) error, it Item) error {
	it.Index, it.Value = s.index, s.value
	s.index++
	s.tee.drain(s.off()) // a value's lone escapes are its own error's, if any
	s.tee.take()
	if err := fn(it); err != nil {
		return &scanFailure{err}
	}
	// Nothing before the decoder's position is needed any more, unless it
	// is still to be copied out by a rewrite.
	s.tee.release(s.off())
	return nil
}

// maxContainerNesting bounds arrays, pages and responses within one
// another (a collection's first page's items is three): each level
// lengthens the pointer of every item inside it, so an unbounded nesting
// would make the output quadratic. Deeper, an array is an error item and
// an object is read as an annotation.
const maxContainerNesting = 4

// node reads the value at ptr, nesting containers deep: an array of
// items, an object (an annotation or a page of them), or anything else,
// which is an error item.
func (s *Scanner) node(ptr string, nesting int, fn func(Item) error) error {
	switch k := s.dec.PeekKind(); {
	case k == '[' && nesting < maxContainerNesting:
		if _, err := s.dec.ReadToken(); err != nil {
			return s.syntax(err)
		}
		for i := 0; s.dec.PeekKind() != ']'; i++ {
			if s.dec.PeekKind() == 0 {
				_, err := s.dec.ReadToken()
				return s.syntax(err)
			}
			if err := s.node(ptr+"/"+strconv.Itoa(i), nesting+1, fn); err != nil {
				return err
			}
		}
		if _, err := s.dec.ReadToken(); err != nil {
			return s.syntax(err)
		}
		return nil
	case k == '{':
		return s.object(ptr, nesting, fn)
	case k == '[':
		d := s.dec.StackDepth()
		if _, err := s.dec.ReadToken(); err != nil {
			return s.syntax(err)
		}
		at := s.off() - 1
		for s.dec.StackDepth() > d {
			if _, err := s.dec.ReadToken(); err != nil {
				return s.syntax(err)
			}
			s.tee.drain(s.off())
		}
		return s.emit(fn, Item{Offset: at, Err: invalid(ptr, where(ptr)+": not an annotation but an array (lists of items nest "+strconv.Itoa(maxContainerNesting)+" deep at most)")})
	default:
		v, err := s.dec.ReadValue()
		if err != nil {
			return s.syntax(err)
		}
		at := s.off() - int64(len(v))
		return s.emit(fn, Item{Offset: at, Err: invalid(ptr, where(ptr)+": not an annotation but "+jsonenc.KindName(byte(k)))})
	}
}

// containerMembers are the members whose value holds further items: a
// page's or collection's items, a Hypothesis search response's rows, a
// collection's embedded first page.
func isContainerMember(name string, k jsontext.Kind) bool {
	return (name == "items" || name == "rows") && k == '[' || name == "first" && k == '{'
}

// object reads an object. If it has a container member, the items in it are
// streamed and the object's other members are skipped; otherwise it is an
// annotation, whose members are parsed as they come (one that turns out
// to be a page only costs the parsing of its members before its items).
func (s *Scanner) object(ptr string, nesting int, fn func(Item) error) error {
	if _, err := s.dec.ReadToken(); err != nil {
		return s.syntax(err)
	}
	at := s.off() - 1
	s.tee.drain(at) // what came before is not this object's
	s.tee.take()
	depth := s.dec.StackDepth()
	p := &parser{dec: s.dec, tee: s.tee, base: at, off: s.off}
	a := &Annotation{Pointer: ptr}
	root := &path{tok: ptr}
	var (
		fail                  *citecheck.Error // the first refusal
		seen                  names
		container, haveTarget bool
		typ, first            string // a collection's type, its first page given by reference
		next                  pageRef
		total                 pageTotal
		lists                 []string // the container members read, each once
		read0                 = s.index
	)
	for s.dec.PeekKind() == '"' {
		tok, err := s.dec.ReadToken()
		if err != nil {
			return s.syntax(err)
		}
		name, k := tok.String(), s.dec.PeekKind()
		items := false // a container member, whose items answer for their own escapes
		dup := seen.add(name)
		switch {
		case isContainerMember(name, k) && nesting < maxContainerNesting:
			// Streamed even after a refusal of the object's own members,
			// and when named twice: its items are whole on their own, and
			// nothing read is lost (the object's error item follows them).
			container, items = true, true
			if !slices.Contains(lists, name) {
				lists = append(lists, name)
			}
			if err := s.node(root.add(name).String(), nesting+1, fn); err != nil {
				return err
			}
			if dup && fail == nil {
				fail = duplicate(root.add(name).String(), name).(refusal).e
			}
		case dup:
			if err = skipValue(s.dec, s.tee, false); err == nil {
				err = duplicate(root.add(name).String(), name)
			}
		case name == "id" || name == "@id":
			// Read even after a refusal: the error item names its id.
			err = p.member(a, name, root.add(name))
		case fail != nil:
			err = skipValue(s.dec, s.tee, false)
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
		case name == "next":
			err = p.nextIRI(root.add(name), &next)
		case name == "total":
			err = p.total(root.add(name), &total)
		case name == "target":
			haveTarget = true
			a.targetAt = p.at()
			err = p.member(a, name, root.add(name))
			a.targetEnd = p.at()
		default:
			err = p.skip()
		}
		if err == nil {
			s.tee.drain(s.off())
			if lone := s.tee.take(); lone >= 0 && !items && fail == nil {
				fail = loneSurrogate(root.add(name).String(), lone)
			}
			continue
		}
		r, ok := err.(refusal)
		if !ok {
			return s.syntax(err)
		}
		if fail == nil {
			fail = r.e
		}
		// The rest of the refused member's value, to where the object
		// goes on; every refusal of a value it does not read is of one
		// that is not a string, so a pending string is the next name.
		for s.dec.StackDepth() > depth {
			if _, err := s.dec.ReadToken(); err != nil {
				return s.syntax(err)
			}
		}
		if k := s.dec.PeekKind(); k != '"' && k != '}' && k != 0 {
			if err := skipValue(s.dec, s.tee, false); err != nil {
				return s.syntax(err)
			}
		}
	}
	if _, err := s.dec.ReadToken(); err != nil { // '}', or the syntax error in its place
		return s.syntax(err)
	}
	if container && fail == nil {
		fail = s.judgePage(root, lists, next, total)
	}
	if container && fail == nil {
		if next.iri != "" && s.next == "" {
			s.next = next.iri
		}
		if read := s.index - read0; total.set && total.n > int64(read) && s.total < 0 {
			s.total, s.totalRead = total.n, read
		}
	}
	switch {
	case container && fail == nil && haveTarget:
		// Both a page and an annotation: its items were read as a page's;
		// its own target is not checked, and that is said.
		return s.emit(fn, Item{Offset: at, ID: a.ID, Err: invalid(ptr, where(ptr)+": both a page of annotations (its items were read) and an annotation (its \"target\" is not checked): pass an annotation or a page")})
	case container && fail == nil:
		return nil
	case container:
		return s.emit(fn, Item{Offset: at, Err: fail, ID: a.ID})
	case fail != nil:
		return s.emit(fn, Item{Offset: at, Err: fail, ID: a.ID})
	case (typ == "AnnotationCollection" || typ == "AnnotationPage") && first != "":
		return s.emit(fn, Item{Offset: at, ID: a.ID, Err: invalid(ptr, where(ptr)+": an "+typ+" whose first page is only referenced ("+strconv.Quote(first)+"): pass the pages themselves")})
	case !haveTarget:
		return s.emit(fn, Item{Offset: at, ID: a.ID, Err: invalid(ptr, where(ptr)+": not an annotation: it has no \"target\"")})
	}
	a.Value, a.Offset, a.size = s.value, at, s.off()-at
	if s.tee.copyAt >= 0 {
		a.Raw = s.tee.bytes(at, s.off()) // not a copy: the tee never writes over bytes it has kept
	}
	return s.emit(fn, Item{Offset: at, Annotation: a})
}

// tee keeps a copy of the bytes the decoder reads when the input is being
// rewritten, from the next byte a rewrite has to copy out (copyAt, -1 when
// not rewriting: then it keeps nothing).
type tee struct {
	r      io.Reader
	buf    []byte
	base   int64 // input offset of buf[0]
	copyAt int64
	// shift counts the input bytes not passed to the decoder before its
	// position: 3 for a byte order mark, and the insides of skipped
	// strings (see stringSkip).
	shift   int64
	started bool
	pending []byte // bytes read and kept, not yet passed to the decoder
	held    [longestUnit]byte
	err     error // the reader's error, other than io.EOF
	eof     bool  // the reader said io.EOF (only looked at while skipping)
	skip    stringSkip
	// keepStrings passes skipped strings to the decoder whole, as the
	// reference that skipping them is tested against.
	keepStrings bool
	// newlines counts the line feeds in the bytes passed to the decoder,
	// for the line number of a syntax error.
	newlines int64
	passed   int64 // bytes passed to the decoder
	lone     loneEscapes
}

var byteOrderMark = []byte("\uFEFF")

func (t *tee) Read(p []byte) (int, error) {
	if !t.started {
		t.started = true
		b := make([]byte, len(byteOrderMark))
		n, err := io.ReadFull(t.r, b)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			t.err = err
		}
		if n == len(b) && bytes.Equal(b, byteOrderMark) {
			t.shift = int64(n)
			t.keep(b)
		} else {
			t.keep(b[:n])
			t.pending = b[:n]
		}
	}
	if len(p) == 0 {
		return 0, nil
	}
	if t.skip.on || len(t.pending) > 0 {
		return t.readSkipping(p)
	}
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.r.Read(p)
	t.keep(p[:n])
	if err != nil && err != io.EOF {
		t.err = err
	}
	if m := t.mend(p[:n], t.passed+t.shift, err == io.EOF); m < n {
		// An escape cut by the end of what was read: passed once judged.
		t.pending = append(t.held[:0], p[m:n]...)
		if n, err = m, nil; n == 0 {
			return t.readSkipping(p)
		}
	}
	t.newlines += int64(bytes.Count(p[:n], []byte{'\n'}))
	t.passed += int64(n)
	return n, err
}

func (t *tee) keep(b []byte) {
	if t.copyAt >= 0 {
		t.buf = append(t.buf, b...)
	}
}

// release drops the bytes before upto that a rewrite no longer needs.
func (t *tee) release(upto int64) {
	if t.copyAt < 0 {
		return
	}
	upto = min(upto, t.copyAt)
	// Compacting only once half the buffer is dead keeps the copying
	// linear in the input, however many small items it holds. The live
	// bytes move to a new buffer, not to the front of this one: an
	// annotation's Raw may still be a slice of it.
	if n := upto - t.base; n > 0 && 2*n >= int64(len(t.buf)) {
		live := t.buf[n:]
		t.buf = append(make([]byte, 0, max(2*len(live), 4096)), live...)
		t.base = upto
	}
}

// bytes returns the input bytes [from, to), which must still be kept: a
// slice of the tee's buffer, its capacity cut to its length so that no
// append through it reaches bytes kept after it.
func (t *tee) bytes(from, to int64) []byte {
	i, j := from-t.base, to-t.base
	return t.buf[i:j:j]
}

// where names a pointer in a message: "value" for the whole value.
func where(ptr string) string {
	if ptr == "" {
		return "value"
	}
	return ptr
}

// unquote decodes a JSON string value.
func unquote(v []byte) string {
	if raw := v[1 : len(v)-1]; bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	b, _ := jsontext.AppendUnquote(nil, v) // v was validated by the decoder
	return string(b)
}
