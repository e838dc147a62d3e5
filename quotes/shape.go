package quotes

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/utext"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
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
func invalid(format string, args ...any) *citecheck.Error {
	return &citecheck.Error{Code: citecheck.CodeInvalidInput, Message: fmt.Sprintf(format, args...)}
}

var bom = []byte("\uFEFF")

// Detect says which shape input is: a JSON object with "type": "message"
// is an Anthropic response, a JSON object with a "citations" array a
// structured answer, and anything else a report, except that input which
// starts with '{' (after white space and a byte order mark) must be one of
// the two JSON shapes, and JSON text that is an array is neither. A
// report must be UTF-8. The error is a *citecheck.Error, invalid_input,
// saying what is wrong in one line.
//
// Cost: linear in len(input): one reading of the JSON (or one UTF-8
// validation of a report).
func Detect(input []byte) (Shape, error) {
	b := bytes.TrimPrefix(input, bom)
	t := bytes.TrimLeft(b, " \t\r\n")
	switch {
	case len(t) > 0 && t[0] == '{':
		var head struct {
			Type      jsontext.Value `json:"type"`
			Citations jsontext.Value `json:"citations"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return 0, invalid("not JSON: %s", jsonMessage(err))
		}
		if string(head.Type) == `"message"` {
			return Anthropic, nil
		}
		if head.Citations.Kind() == '[' {
			return Structured, nil
		}
		return 0, invalid(`a JSON object that is neither an Anthropic response ("type": "message") nor a structured answer (a "citations" array)`)
	case len(t) > 0 && t[0] == '[' && jsontext.Value(b).IsValid():
		return 0, invalid(`a JSON array is not an input quotes reads: a structured answer is an object {"citations": [...]}`)
	}
	if !utf8.Valid(b) {
		return 0, invalid("not UTF-8: invalid byte 0x%02X at byte offset %d", b[utext.InvalidAt(b)], utext.InvalidAt(b)+len(input)-len(b))
	}
	return Report, nil
}

// jsonMessage is a decoding error in one line, without the package's
// "json: " prefix.
func jsonMessage(err error) string {
	s := strings.TrimPrefix(err.Error(), "json: ")
	s = strings.NewReplacer("Go string", "a string", "Go int", "an integer", "Go []", "an array", "\n", " ").Replace(s)
	return s
}

// Read returns the quotations of input, whose shape is sh: for a report,
// every quotation rule 5 has checked; for a structured answer, every
// citation; for an Anthropic response, every citation of every text block,
// in order. The error is a *citecheck.Error, invalid_input, naming the
// JSON Pointer of the value at fault in its message.
//
// Cost: linear in len(input).
func Read(input []byte, sh Shape) ([]Quotation, error) {
	b := bytes.TrimPrefix(input, bom)
	switch sh {
	case Structured:
		return readStructured(b)
	case Anthropic:
		return readAnthropic(b)
	}
	all := Extract(b)
	qs := all[:0]
	for _, q := range all {
		if q.Checked() {
			qs = append(qs, q)
		}
	}
	return qs, nil
}

// readStructured reads {"citations": [{"source_id", "quote"}, …]}: quote a
// string, source_id a string, an integer (LangChain's QuotedAnswer numbers
// its sources), null or absent (no marker). Other members are the
// answer's own and are not read.
func readStructured(b []byte) ([]Quotation, error) {
	var ans struct {
		Citations []struct {
			SourceID jsontext.Value `json:"source_id"`
			Quote    *string        `json:"quote"`
		} `json:"citations"`
	}
	if err := json.Unmarshal(b, &ans); err != nil {
		return nil, invalid("the structured answer: %s", jsonMessage(err))
	}
	qs := make([]Quotation, 0, len(ans.Citations))
	for i, c := range ans.Citations {
		if c.Quote == nil {
			return nil, invalid(`the structured answer: /citations/%d has no "quote" string`, i)
		}
		q := Quotation{Text: *c.Quote}
		switch c.SourceID.Kind() {
		case 0, 'n':
		case '"':
			var s string
			json.Unmarshal(c.SourceID, &s)
			q.Marker, q.Marked = s, true
		case '0':
			if _, err := strconv.ParseInt(string(c.SourceID), 10, 64); err != nil {
				return nil, invalid("the structured answer: /citations/%d/source_id is %s, not a string or an integer", i, citecheck.Echo(c.SourceID))
			}
			q.Marker, q.Marked = string(c.SourceID), true
		default:
			return nil, invalid("the structured answer: /citations/%d/source_id is not a string or an integer", i)
		}
		qs = append(qs, q)
	}
	return qs, nil
}

// anthropicCitation is a citation of a text block of a Messages response.
// The numbers are pointers so that a missing one is told from 0.
type anthropicCitation struct {
	Type            string  `json:"type"`
	CitedText       *string `json:"cited_text"`
	DocumentIndex   *int    `json:"document_index"`
	StartCharIndex  *int    `json:"start_char_index"`
	EndCharIndex    *int    `json:"end_char_index"`
	StartBlockIndex *int    `json:"start_block_index"`
	EndBlockIndex   *int    `json:"end_block_index"`
	StartPageNumber *int    `json:"start_page_number"`
	EndPageNumber   *int    `json:"end_page_number"`
}

// readAnthropic reads the citations of a Messages response's text blocks.
// A citation of a document (char_location, page_location,
// content_block_location) must have cited_text, document_index and its
// two numbers, none negative; a citation of another type (a search
// result, a web page) is read with its cited_text, and is not checked.
func readAnthropic(b []byte) ([]Quotation, error) {
	var msg struct {
		Content []struct {
			Type      string           `json:"type"`
			Citations []jsontext.Value `json:"citations"`
		} `json:"content"`
	}
	if err := json.Unmarshal(b, &msg); err != nil {
		return nil, invalid("the Anthropic response: %s", jsonMessage(err))
	}
	var qs []Quotation
	for bi, block := range msg.Content {
		if block.Type != "text" {
			continue
		}
		for ci, raw := range block.Citations {
			at := fmt.Sprintf("/content/%d/citations/%d", bi, ci)
			var c anthropicCitation
			if err := json.Unmarshal(raw, &c); err != nil {
				return nil, invalid("the Anthropic response: %s: %s", at, jsonMessage(err))
			}
			loc := &Location{Type: c.Type, Block: bi}
			q := Quotation{Location: loc}
			if c.CitedText != nil {
				q.Text = *c.CitedText
			}
			var start, end *int
			var names [2]string
			switch c.Type {
			case CharLocation:
				start, end, names = c.StartCharIndex, c.EndCharIndex, [2]string{"start_char_index", "end_char_index"}
			case ContentBlockLocation:
				start, end, names = c.StartBlockIndex, c.EndBlockIndex, [2]string{"start_block_index", "end_block_index"}
			case PageLocation:
				start, end, names = c.StartPageNumber, c.EndPageNumber, [2]string{"start_page_number", "end_page_number"}
			case "":
				return nil, invalid(`the Anthropic response: %s has no "type"`, at)
			default:
				qs = append(qs, q)
				continue
			}
			if c.CitedText == nil {
				return nil, invalid(`the Anthropic response: %s (%s) has no "cited_text"`, at, c.Type)
			}
			for k, n := range []*int{c.DocumentIndex, start, end} {
				name := "document_index"
				if k > 0 {
					name = names[k-1]
				}
				if n == nil {
					return nil, invalid(`the Anthropic response: %s (%s) has no %q`, at, c.Type, name)
				}
				if *n < 0 {
					return nil, invalid(`the Anthropic response: %s/%s is %d, negative`, at, name, *n)
				}
			}
			loc.Document, loc.Start, loc.End = *c.DocumentIndex, *start, *end
			q.Marker, q.Marked = strconv.Itoa(loc.Document), true
			qs = append(qs, q)
		}
	}
	return qs, nil
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
	// Blocks (content sources) are the code point offsets in Text where
	// each of the content's blocks starts, and one more where the last
	// ends: block i is Text[Blocks[i]:Blocks[i+1]]. A block that is not
	// text (an image) is empty.
	Blocks []int
}

// ReadRequest returns the documents of a Messages request, in order: the
// document blocks of its messages' content. The error is a
// *citecheck.Error, invalid_input, for a request that is not JSON, or
// whose messages or documents are not of the API's shape.
//
// Cost: linear in len(request).
func ReadRequest(request []byte) ([]Document, error) {
	var req struct {
		Messages *[]struct {
			Content jsontext.Value `json:"content"`
		} `json:"messages"`
	}
	b := bytes.TrimPrefix(request, bom)
	if err := json.Unmarshal(b, &req); err != nil {
		return nil, invalid("the Messages request: %s", jsonMessage(err))
	}
	if req.Messages == nil {
		return nil, invalid(`the Messages request has no "messages" array`)
	}
	var docs []Document
	for mi, m := range *req.Messages {
		if m.Content.Kind() != '[' { // a string, or absent: no documents
			continue
		}
		var blocks []struct {
			Type   string `json:"type"`
			Source *struct {
				Type    string         `json:"type"`
				Data    jsontext.Value `json:"data"`
				Content jsontext.Value `json:"content"`
			} `json:"source"`
		}
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return nil, invalid("the Messages request: /messages/%d/content: %s", mi, jsonMessage(err))
		}
		for bi, blk := range blocks {
			if blk.Type != "document" {
				continue
			}
			at := fmt.Sprintf("/messages/%d/content/%d", mi, bi)
			d := Document{ID: strconv.Itoa(len(docs))}
			if blk.Source == nil {
				return nil, invalid(`the Messages request: %s is a document without a "source"`, at)
			}
			switch blk.Source.Type {
			case "text":
				if err := json.Unmarshal(blk.Source.Data, &d.Text); err != nil || blk.Source.Data.Kind() != '"' {
					return nil, invalid(`the Messages request: %s/source/data is not a string`, at)
				}
				d.HasText = true
			case "content":
				if err := readContentSource(&d, blk.Source.Content); err != nil {
					return nil, invalid("the Messages request: %s/source/content: %s", at, err.Error())
				}
			}
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// readContentSource reads a content source: a string (one block) or an
// array of content blocks, whose text blocks make the text.
func readContentSource(d *Document, v jsontext.Value) error {
	d.HasText = true
	var sb strings.Builder
	cp := 0
	switch v.Kind() {
	case '"':
		var s string
		json.Unmarshal(v, &s)
		d.Text, d.Blocks = s, []int{0, utf8.RuneCountInString(s)}
		return nil
	case '[':
	default:
		return fmt.Errorf("not a string or an array of content blocks")
	}
	var blocks []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(v, &blocks); err != nil {
		return fmt.Errorf("%s", jsonMessage(err))
	}
	for i, b := range blocks {
		d.Blocks = append(d.Blocks, cp)
		if b.Type != "text" {
			continue
		}
		if b.Text == nil {
			return fmt.Errorf(`block %d is a text block without "text"`, i)
		}
		sb.WriteString(*b.Text)
		cp += utf8.RuneCountInString(*b.Text)
	}
	d.Blocks = append(d.Blocks, cp)
	d.Text = sb.String()
	return nil
}
