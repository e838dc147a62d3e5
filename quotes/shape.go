package quotes

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/citecheck/citecheck/internal/utext"
)

// Shape is which of the three inputs a quotes check reads (spec §5.13),
// told apart by content.
type Shape uint8

const (
	// Report: Markdown or plain text; its quotations are read by rules 1–5.
	Report Shape = iota
	// Structured: a JSON object with a "citations" array of {"source_id",
	// "quote"}.
	Structured
	// Anthropic: a Messages API response, a JSON object with "type":
	// "message", whose text blocks carry citations.
	Anthropic
)

var shapeNames = [...]string{"report", "structured", "anthropic"}

func (s Shape) String() string { return shapeNames[s] }

// Location is where an Anthropic citation points into its document, as
// the response gives it.
type Location struct {
	Type     string // char_location, page_location, content_block_location, or another type
	Block    int    // the index of the response's content block that carries the citation
	Document int    // document_index
	// Start and End: start_char_index and end_char_index (code points),
	// start_block_index and end_block_index, or start_page_number and
	// end_page_number, End exclusive; 0 for other types.
	Start, End int
}

// The citation types whose document is one of the request's documents.
const (
	CharLocation         = "char_location"
	PageLocation         = "page_location"
	ContentBlockLocation = "content_block_location"
)

// invalid is the error of an input that is not one of the shapes.
// Messages are built without fmt, whose printer the WebAssembly module
// does not link (docs/javascript.md, "Size").
func invalid(msg string) *citecheck.Error {
	return &citecheck.Error{Code: citecheck.CodeInvalidInput, Message: msg}
}

var bom = []byte("\uFEFF")

// parseJSON checks that b, the input after a byte order mark of base
// bytes, is one JSON text, and returns its value; the error names what
// is wrong and where in plain words, after what (e.g. "not JSON"), or is
// w's poll's (w may be nil; see checkJSON). The value carries w.
func parseJSON(b []byte, base int, what string, w *workCounter) (node, error) {
	err := checkJSON(b, base, w)
	switch {
	case w != nil && w.err != nil:
		return node{}, w.err
	case err != nil:
		return node{}, invalid(what + ": " + err.String())
	}
	return node{raw: bytes.Trim(b, " \t\r\n"), r: &walker{w: w}}, nil
}

// pick returns the values of object n's members names, in one walk of
// it; a member absent or null (null is read as absent, as the APIs write
// it) has no value.
func (n node) pick(names ...string) []node {
	out := make([]node, len(names))
	n.members(func(m string, v node) error {
		for k, name := range names {
			if m == name && v.kind() != 'n' {
				out[k] = v
			}
		}
		return nil
	})
	return out
}

// member returns the value of object n's member name, and whether it is
// there and not null.
func (n node) member(name string) (node, bool) {
	v := n.pick(name)[0]
	return v, v.has()
}

// has reports whether a value picked is there.
func (n node) has() bool { return n.raw != nil }

// kindName names a value's kind for a message.
func (n node) kindName() string { return jsonenc.KindName(n.kind()) }

// Detect says which shape input is: a JSON object with "type": "message"
// is an Anthropic response, a JSON object with a "citations" array a
// structured answer, and anything else a report, except that input which
// starts with '{' (after white space and a byte order mark) must be one of
// the two JSON shapes, and JSON text that is an array is neither. A
// report must be UTF-8. The error is a *citecheck.Error, invalid_input,
// saying what is wrong and where (byte offset, JSON Pointer) in one line.
//
// Cost: linear in len(input): one validation of the JSON and one walk of
// its top-level members (or one UTF-8 validation of a report).
func Detect(input []byte) (Shape, error) {
	sh, _, err := detect(input, nil)
	return sh, err
}

// detect is Detect, polling w (which may be nil) as the JSON is
// validated, and returns a JSON input's value too, carrying w.
func detect(input []byte, w *workCounter) (Shape, node, error) {
	b := bytes.TrimPrefix(input, bom)
	base := len(input) - len(b)
	t := bytes.TrimLeft(b, " \t\r\n")
	switch {
	case len(t) > 0 && t[0] == '{':
		top, err := parseJSON(b, base, "not JSON", w)
		if err != nil {
			return 0, node{}, err
		}
		m := top.pick("type", "citations")
		if typ := m[0]; typ.has() && typ.kind() == '"' && typ.text() == "message" {
			return Anthropic, top, nil
		}
		if c := m[1]; c.has() && c.kind() == '[' {
			return Structured, top, nil
		}
		return 0, node{}, invalid(`a JSON object that is neither an Anthropic response ("type": "message") nor a structured answer (a "citations" array)`)
	case len(t) > 0 && t[0] == '[' && checkJSON(b, base, nil) == nil:
		return 0, node{}, invalid(`a JSON array is not an input quotes reads: a structured answer is an object {"citations": [...]}`)
	}
	if !utf8.Valid(b) {
		return 0, node{}, invalid(notUTF8(b, utext.InvalidAt(b), base))
	}
	return Report, node{}, nil
}

// Read returns the quotations of input, whose shape is sh: for a report,
// every quotation rule 5 has checked; for a structured answer, every
// citation; for an Anthropic response, every citation of every text block,
// in order. A UTF-8 byte order mark at the start is not text: a
// report's lines and columns are those an editor shows, and Offset
// counts the bytes of input as given, the mark included. The error is
// a *citecheck.Error, invalid_input, naming the JSON Pointer of the value
// at fault (and for JSON that is not well formed, the byte offset) in its
// message.
//
// Cost: linear in len(input): a JSON input is validated once and walked
// once per level of nesting the reader descends (at most five).
func Read(input []byte, sh Shape) ([]Quotation, error) {
	b := bytes.TrimPrefix(input, bom)
	base := len(input) - len(b)
	var qs []Quotation
	keep := func(q Quotation) error {
		qs = append(qs, q)
		return nil
	}
	if sh == Structured || sh == Anthropic {
		what, read := "the structured answer is not JSON", readStructured
		if sh == Anthropic {
			what, read = "the Anthropic response is not JSON", readAnthropic
		}
		top, err := parseJSON(b, base, what, nil)
		if err == nil {
			err = read(top, keep)
		}
		if err != nil {
			return nil, err
		}
		return qs, nil
	}
	all := Extract(b)
	qs = all[:0]
	for _, q := range all {
		if q.Checked() {
			q.Offset += base // the offset in the input as given
			q.End += base
			qs = append(qs, q)
		}
	}
	return qs, nil
}

// readStructured reads {"citations": [{"source_id", "quote"}, …]}: quote a
// string, source_id a string, an integer within ±(2^53−1) by the engine's
// rule (LangChain's QuotedAnswer numbers its sources; 1.0 and 1e0 are
// the marker "1"), null or absent (no marker). Other members are the
// answer's own and are not read. top is the answer, checkJSON has
// accepted it; emit gets each citation as it is read, and its first
// error stops the reading and is returned.
func readStructured(top node, emit func(Quotation) error) error {
	cits, ok := top.member("citations")
	if top.kind() != '{' || !ok || cits.kind() != '[' {
		return invalid(`the structured answer has no "citations" array`)
	}
	return cits.items(func(i int, c node) error {
		if c.kind() != '{' {
			return invalid("the structured answer: " + c.ptr() + " is " + c.kindName() + `, not a citation {"source_id", "quote"}`)
		}
		m := c.pick("quote", "source_id")
		quote := m[0]
		if !quote.has() {
			return invalid("the structured answer: " + c.ptr() + ` has no "quote" string`)
		}
		if quote.kind() != '"' {
			return invalid("the structured answer: " + quote.ptr() + " is " + quote.kindName() + ", not a string")
		}
		q := Quotation{Text: quote.text()}
		if sid := m[1]; sid.has() {
			switch sid.kind() {
			case '"':
				q.Marker, q.Marked = sid.text(), true
			case '0':
				m, why := marker(sid.raw)
				if why != "" {
					return invalid("the structured answer: " + sid.ptr() + " is " + citecheck.Echo(sid.raw).String() + ", which " + why + "; a source_id is a string or an integer")
				}
				q.Marker, q.Marked = m, true
			default:
				return invalid("the structured answer: " + sid.ptr() + " is " + sid.kindName() + ", not a string or an integer")
			}
		}
		return emit(q)
	})
}

// marker is the marker an integer source_id names: its decimal form, by
// the engine's integer rule, negative ones included ("-0" is "0").
func marker(lit []byte) (string, string) {
	n, why := citecheck.Integer(lit)
	if why == "is negative" {
		if n, why = citecheck.Integer(lit[1:]); why == "" {
			if n == 0 {
				return "0", ""
			}
			return "-" + strconv.Itoa(n), ""
		}
	}
	if why != "" {
		return "", why
	}
	return strconv.Itoa(n), ""
}

// anthropicNumbers are the integer members of an Anthropic citation: all
// are read, whatever the citation's type, each a non-negative integer
// within 2^53−1 by the engine's rule (spec §1), so that no number of a
// response can overflow what is computed from it.
var anthropicNumbers = [...]string{"document_index", "start_char_index", "end_char_index", "start_block_index", "end_block_index", "start_page_number", "end_page_number"}

// readAnthropic reads the citations of a Messages response's text blocks.
// A citation of a document (char_location, page_location,
// content_block_location) must have cited_text, document_index and its
// two numbers; a citation of another type (a search result, a web page)
// is read with its cited_text, and is not checked. Every number present
// is an integer in [0, 2^53−1]; null is read as absent. top is the
// response, checkJSON has accepted it; emit gets each citation as it is
// read, and its first error stops the reading and is returned.
func readAnthropic(top node, emit func(Quotation) error) error {
	if top.kind() != '{' {
		return invalid("the Anthropic response is " + top.kindName() + ", not an object")
	}
	content, ok := top.member("content")
	if !ok {
		return nil
	}
	if content.kind() != '[' {
		return invalid("the Anthropic response: " + content.ptr() + " is " + content.kindName() + ", not an array of content blocks")
	}
	return content.items(func(bi int, block node) error {
		if block.kind() != '{' {
			return invalid("the Anthropic response: " + block.ptr() + " is " + block.kindName() + ", not a content block (an object)")
		}
		if typ, err := stringMember(block, "type", "the Anthropic response"); err != nil || typ != "text" {
			return err
		}
		cits, ok := block.member("citations")
		if !ok {
			return nil
		}
		if cits.kind() != '[' {
			return invalid("the Anthropic response: " + cits.ptr() + " is " + cits.kindName() + ", not an array of citations")
		}
		return cits.items(func(_ int, c node) error {
			q, err := anthropicCitation(c, bi)
			if err != nil {
				return err
			}
			return emit(q)
		})
	})
}

// stringMember returns object n's member name as a string, "" when it is
// absent or null.
func stringMember(n node, name, what string) (string, error) {
	return stringValue(n.pick(name)[0], what)
}

// stringValue is a picked value as a string, "" when it is absent.
func stringValue(v node, what string) (string, error) {
	switch {
	case !v.has():
		return "", nil
	case v.kind() != '"':
		return "", invalid(what + ": " + v.ptr() + " is " + v.kindName() + ", not a string")
	}
	return v.text(), nil
}

// anthropicCitation reads citation c of content block bi.
func anthropicCitation(c node, bi int) (Quotation, error) {
	const what = "the Anthropic response"
	if c.kind() != '{' {
		return Quotation{}, invalid(what + ": " + c.ptr() + " is " + c.kindName() + ", not a citation (an object)")
	}
	m := c.pick(append([]string{"type", "cited_text"}, anthropicNumbers[:]...)...)
	typ, err := stringValue(m[0], what)
	if err != nil {
		return Quotation{}, err
	}
	text, hasText := m[1], m[1].has()
	if hasText && text.kind() != '"' {
		return Quotation{}, invalid(what + ": " + text.ptr() + " is " + text.kindName() + ", not a string")
	}
	var nums [len(anthropicNumbers)]int
	var has [len(anthropicNumbers)]bool
	for k := range anthropicNumbers {
		v := m[2+k]
		if !v.has() {
			continue
		}
		if v.kind() != '0' {
			return Quotation{}, invalid(what + ": " + v.ptr() + " is " + v.kindName() + ", not an integer")
		}
		n, why := citecheck.Integer(v.raw)
		if why != "" {
			return Quotation{}, invalid(what + ": " + v.ptr() + " is " + citecheck.Echo(v.raw).String() + ", which " + why + "; it must be an integer from 0 to 2^53−1")
		}
		nums[k], has[k] = n, true
	}
	loc := &Location{Type: typ, Block: bi}
	q := Quotation{Location: loc}
	if hasText {
		q.Text = text.text()
	}
	var pair int // the index in anthropicNumbers of the type's start
	switch typ {
	case CharLocation:
		pair = 1
	case ContentBlockLocation:
		pair = 3
	case PageLocation:
		pair = 5
	case "":
		return q, invalid(what + ": " + c.ptr() + ` has no "type"`)
	default:
		return q, nil
	}
	if !hasText {
		return q, invalid(what + ": " + c.ptr() + " (" + typ + `) has no "cited_text"`)
	}
	for _, k := range []int{0, pair, pair + 1} {
		if !has[k] {
			return q, invalid(what + ": " + c.ptr() + " (" + typ + ") has no " + strconv.Quote(anthropicNumbers[k]))
		}
	}
	loc.Document, loc.Start, loc.End = nums[0], nums[pair], nums[pair+1]
	q.Marker, q.Marked = strconv.Itoa(loc.Document), true
	return q, nil
}

// Document is one document block of a Messages request, as a source.
type Document struct {
	// ID is the document's index among the request's documents, in
	// order, as a decimal number: its citations' document_index.
	ID string
	// Text is the document's text: a text source's data, or a content
	// source's text blocks joined with nothing between them. HasText is
	// false for a document whose text the request does not carry (a PDF,
	// a URL, a file).
	Text    string
	HasText bool
	// Carries (a document without text) says what the request gives
	// instead, for a message: "a PDF as base64 data", "a URL", "a file".
	Carries string
	// Path is the JSON Pointer, in the request, of what carries the
	// document's text (its source's "data" or "content") or, without
	// text, of its source: where a message about the document points.
	Path string
	// Blocks (content sources) are the code point offsets in Text where
	// each of the content's blocks starts, and one more where the last
	// ends: block i is Text[Blocks[i]:Blocks[i+1]]. A block that is not
	// text (an image) is empty.
	Blocks []int
}

// NoText says, for a document whose text the request does not carry,
// that citecheck reads no text from it and how to give its text: as a
// source whose id is the document's index. "" for a document with text.
func (d *Document) NoText() string {
	if d.HasText {
		return ""
	}
	return "document " + d.ID + " is " + d.Carries + ", from which citecheck reads no text; give its text as source " + strconv.Quote(d.ID) +
		" (the command: --source " + d.ID + "=FILE; the check_quotes tool: a source {\"id\": " + strconv.Quote(d.ID) + ", \"text\": ...})"
}

// ReadRequest returns the documents of a Messages request, in order: the
// document blocks of its messages' content. The error is a
// *citecheck.Error, invalid_input, for a request that is not JSON, or
// whose messages or documents are not of the API's shape, naming the
// value at fault by its JSON Pointer.
//
// Cost: linear in len(request).
func ReadRequest(request []byte) ([]Document, error) {
	const what = "the Messages request"
	b := bytes.TrimPrefix(request, bom)
	top, err := parseJSON(b, len(request)-len(b), what+" is not JSON", nil)
	if err != nil {
		return nil, err
	}
	msgs, ok := node{}, false
	if top.kind() == '{' {
		msgs, ok = top.member("messages")
	}
	if !ok || msgs.kind() != '[' {
		return nil, invalid(`the Messages request has no "messages" array`)
	}
	var docs []Document
	err = msgs.items(func(_ int, m node) error {
		if m.kind() != '{' {
			return invalid(what + ": " + m.ptr() + " is " + m.kindName() + ", not a message (an object)")
		}
		content, ok := m.member("content")
		if !ok || content.kind() != '[' { // a string, or absent: no documents
			return nil
		}
		return content.items(func(_ int, blk node) error {
			if blk.kind() != '{' {
				return invalid(what + ": " + blk.ptr() + " is " + blk.kindName() + ", not a content block (an object)")
			}
			if typ, err := stringMember(blk, "type", what); err != nil || typ != "document" {
				return err
			}
			d := Document{ID: strconv.Itoa(len(docs))}
			if err := readDocument(&d, blk); err != nil {
				return err
			}
			docs = append(docs, d)
			return nil
		})
	})
	return docs, err
}

// readDocument reads the source of document block blk.
func readDocument(d *Document, blk node) error {
	const what = "the Messages request"
	src, ok := blk.member("source")
	if !ok {
		return invalid(what + ": " + blk.ptr() + ` is a document without a "source"`)
	}
	d.Path = src.rawPtr()
	if src.kind() != '{' {
		return invalid(what + ": " + src.ptr() + " is " + src.kindName() + ", not an object")
	}
	typ, err := stringMember(src, "type", what)
	if err != nil {
		return err
	}
	switch typ {
	case "text":
		data, ok := src.member("data")
		if !ok || data.kind() != '"' {
			return invalid(what + ": " + src.ptr() + "/data is not a string")
		}
		d.Text, d.HasText, d.Path = data.text(), true, data.rawPtr()
	case "content":
		content, ok := src.member("content")
		if !ok {
			return invalid(what + ": " + src.ptr() + ` has no "content"`)
		}
		d.Path = content.rawPtr()
		if err := readContentSource(d, content); err != nil {
			return err
		}
	case "base64":
		d.Carries = "base64 data"
		if mt, _ := stringMember(src, "media_type", what); mt == "application/pdf" {
			d.Carries = "a PDF as base64 data"
		}
	case "url":
		d.Carries = "a URL"
	case "file":
		d.Carries = "a file of the Files API"
	default:
		d.Carries = "a source of type " + citecheck.Echo(typ).Quoted()
	}
	return nil
}

// readContentSource reads a content source: a string (one block) or an
// array of content blocks, whose text blocks make the text.
func readContentSource(d *Document, v node) error {
	const what = "the Messages request"
	d.HasText = true
	var sb strings.Builder
	cp := 0
	switch v.kind() {
	case '"':
		s := v.text()
		d.Text, d.Blocks = s, []int{0, utf8.RuneCountInString(s)}
		return nil
	case '[':
	default:
		return invalid(what + ": " + v.ptr() + " is " + v.kindName() + ", not a string or an array of content blocks")
	}
	err := v.items(func(i int, b node) error {
		if b.kind() != '{' {
			return invalid(what + ": " + b.ptr() + " is " + b.kindName() + ", not a content block (an object)")
		}
		d.Blocks = append(d.Blocks, cp)
		if typ, err := stringMember(b, "type", what); err != nil || typ != "text" {
			return err
		}
		text, ok := b.member("text")
		if !ok || text.kind() != '"' {
			return invalid(what + ": " + b.ptr() + ` is a text block without a "text" string`)
		}
		s := text.text()
		sb.WriteString(s)
		cp += utf8.RuneCountInString(s)
		return nil
	})
	if err != nil {
		return err
	}
	d.Blocks = append(d.Blocks, cp)
	d.Text = sb.String()
	return nil
}

// notUTF8 is the message for b, not UTF-8 from byte at on, in the words
// every command uses for a file that is not UTF-8: the byte, in
// hexadecimal, and its offset plus base.
func notUTF8(b []byte, at, base int) string {
	const hex = "0123456789ABCDEF"
	c := b[at]
	return "not UTF-8: invalid byte 0x" + string([]byte{hex[c>>4], hex[c&15]}) + " at byte offset " + strconv.Itoa(at+base)
}
