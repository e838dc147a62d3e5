package citecheck

// The previous decoder, on go-json-experiment/json's jsontext: the
// reference of FuzzDecodeAgainstReference and TestDecodeMatchesReferenceOnSeeds
// (decode_diff_test.go). Decode must give the same answer on every body: the
// same Request, or an Error equal in code, message, path, limit, max and
// actual. It shares no code with Decode but the spec's wording of the
// messages and scanBudget (tested on its own): its walk is jsontext's
// tokens, not Decode's scanner; the rules across members and the limits are
// judged after the walk, over what it read (refRules, refLimits), not noted
// as it goes; and number literals are judged with math/big
// (refParseInteger), not by Decode's digit walk.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"

	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/go-json-experiment/json/jsontext"
)

// invalidf is the invalid_input error at path, its message written by
// fmt: the reference words its messages as the spec does, with fmt's
// verbs, and Decode (which builds them without fmt) must say the same.
func invalidf(path, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidInput, Path: path, Message: fmt.Sprintf(format, args...)}
}

// refDecode is the decoder Decode replaced (jsontext's tokens under the
// same walk), kept as the reference FuzzDecodeAgainstReference compares
// Decode with. It reads a request body and returns the validated Request, or the
// first failure of spec §1, in its order: size, I-JSON, schema, rules across
// members, limits, scan budget. The body is not modified or retained; the
// Request's strings are copies.
//
// Cost: linear in the body. Decoding stops at the first I-JSON or schema
// failure; limit failures are only reported once the whole body is known to
// be well formed, because every invalid_input outranks every limit_exceeded.
func refDecode(body []byte) (*Request, *Error) {
	if len(body) > MaxInputBytes {
		return nil, BodyTooLarge(int64(len(body)))
	}
	// A bytes.Buffer lets jsontext parse body in place, without a copy.
	d := refDecoder{dec: jsontext.NewDecoder(bytes.NewBuffer(body))}
	req, err := d.request()
	if err != nil {
		return nil, err
	}
	return req, nil
}

// decoder walks the token stream once. Schema failures end the walk at once
// (after draining the rest for a syntax error, which outranks them); rule and
// limit failures are remembered, earliest first, and reported after the walk.
type refDecoder struct {
	dec *jsontext.Decoder

	// read is what the walk read that the rules and limits judge, in the
	// order it finished reading it.
	items    []refItem    // each source and citation, as its object closed
	measures []refMeasure // each array's items and each limited string's bytes
}

// refItem is a source or a citation read whole, at path.
type refItem struct {
	path      string
	source    *Source   // a source, or
	citation  *Citation // a citation, with whether it had a quote member
	quoteSeen bool
}

// refMeasure is the size of the value at path, which starts at input
// offset at: items of an array, or bytes of a string, against limit.
type refMeasure struct {
	at    int64
	path  string
	limit string
	n     int
	items bool
}

// refSchemaFailure is the error a schema check returns, carrying the failure,
// so that callers unwind with `if err != nil { return err }` and request can
// tell it from jsontext's syntax errors.
type refSchemaFailure struct{ e *Error }

func (s refSchemaFailure) Error() string { return s.e.Message }

func (d *refDecoder) request() (*Request, *Error) {
	req, err := d.body()
	if err == nil {
		// A valid value must also be the only one: trailing bytes other than
		// white space make the body not one JSON text. jsontext reads a
		// stream of values, so a second value must be refused here.
		if d.dec.PeekKind() != 0 {
			return nil, d.secondValue()
		}
		if _, err = d.dec.ReadToken(); err == io.EOF {
			err = nil
		}
		if err != nil {
			return nil, refSyntaxError(err)
		}
	} else {
		var sf refSchemaFailure
		if !errors.As(err, &sf) {
			return nil, refSyntaxError(err)
		}
		// An I-JSON failure later in the body still outranks this schema
		// failure (step order always wins), so read on, tokens only.
		// A second top-level value is such a failure too.
		for {
			if _, terr := d.dec.ReadToken(); terr != nil {
				if terr != io.EOF {
					return nil, refSyntaxError(terr)
				}
				break
			}
			if d.dec.StackDepth() == 0 && d.dec.PeekKind() != 0 {
				return nil, d.secondValue()
			}
		}
		return nil, sf.e
	}
	if e := refRules(d.items); e != nil {
		return nil, e
	}
	if e := refLimits(d.measures); e != nil {
		return nil, e
	}
	if e := scanBudget(req, nil, nil, MaxScanUnits); e != nil {
		return nil, e
	}
	return req, nil
}

// secondValue is the I-JSON failure of a body holding more than one value;
// the decoder is at the end of the first.
func (d *refDecoder) secondValue() *Error {
	return invalidf("", "body: not one JSON text: another value follows the one that ends at byte %d", d.dec.InputOffset())
}

// syntaxError turns a jsontext failure (malformed JSON, invalid UTF-8, a lone
// surrogate escape, a duplicate member name, a truncated body) into the
// invalid_input error, keeping the pointer jsontext reports.
func refSyntaxError(err error) *Error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return invalidf("", "body: not one complete JSON text (unexpected end of input)")
	}
	msg := err.Error()
	path := "" // the whole body, unless one value is to blame
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		msg = strings.TrimPrefix(se.Err.Error(), "jsontext: ")
		switch {
		case errors.Is(se.Err, jsontext.ErrDuplicateName):
			path = string(se.JSONPointer) // the second of the two names
		case strings.Contains(msg, "surrogate"):
			path = string(se.JSONPointer) // the string that holds it
			msg = "string contains an unpaired surrogate escape (" + msg + ")"
		}
		msg += " at byte " + strconv.FormatInt(se.ByteOffset, 10)
	}
	return invalidf(path, "%s: not I-JSON: %s", where(path), msg)
}

func (d *refDecoder) fail(path, format string, args ...any) error {
	return refSchemaFailure{invalidf(path, format, args...)}
}

// measure records the size of the value at path, from offset at.
func (d *refDecoder) measure(at int64, path, limit string, n int) {
	d.measures = append(d.measures, refMeasure{at: at, path: path, limit: limit, n: n})
}

func (d *refDecoder) body() (*Request, error) {
	req := &Request{}
	var haveSources, haveCitations bool
	err := d.object("", func(name string) error {
		switch name {
		case "sources":
			haveSources = true
			return d.array("/sources", LimitSources, func(i int, path string) error {
				s, err := d.source(path)
				if err == nil {
					req.Sources = append(req.Sources, s)
					d.items = append(d.items, refItem{path: path, source: &s})
				}
				return err
			})
		case "citations":
			haveCitations = true
			return d.array("/citations", LimitCitations, func(i int, path string) error {
				c, err := d.citation(path)
				if err == nil {
					req.Citations = append(req.Citations, c)
				}
				return err
			})
		}
		return d.unknown("", name)
	})
	if err != nil {
		return nil, err
	}
	if !haveSources {
		return nil, d.fail("", "body: required member \"sources\" is missing")
	}
	if !haveCitations {
		return nil, d.fail("", "body: required member \"citations\" is missing")
	}
	return req, nil
}

func (d *refDecoder) unknown(path, name string) error {
	p := path + "/" + jsonenc.EscapePointer(name)
	return d.fail(p, "%s: member %q is not allowed", where(p), Echo(name))
}

// object reads an object at path, calling member for each member name with
// the decoder positioned at its value. member must consume the value.
func (d *refDecoder) object(path string, member func(name string) error) error {
	if k := d.dec.PeekKind(); k != '{' {
		if k == 0 {
			return d.peekError()
		}
		return d.fail(path, "%s: must be an object, not %s", where(path), jsonenc.KindName(byte(k)))
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	for d.dec.PeekKind() == '"' {
		tok, err := d.dec.ReadToken()
		if err != nil {
			return err
		}
		if err := member(tok.String()); err != nil {
			return err
		}
	}
	_, err := d.dec.ReadToken() // '}', or the syntax error in its place
	return err
}

// array reads an array at path whose items must be objects, calling item for
// each. An empty array breaks minItems; its items are measured against
// limit, from its '['.
func (d *refDecoder) array(path, limit string, item func(i int, path string) error) error {
	if k := d.dec.PeekKind(); k != '[' {
		if k == 0 {
			return d.peekError()
		}
		return d.fail(path, "%s: must be an array, not %s", where(path), jsonenc.KindName(byte(k)))
	}
	at := d.dec.InputOffset()
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	n := 0
	for k := d.dec.PeekKind(); k != ']'; k = d.dec.PeekKind() {
		if k == 0 {
			return d.peekError()
		}
		if err := item(n, path+"/"+strconv.Itoa(n)); err != nil {
			return err
		}
		n++
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	if n == 0 {
		return d.fail(path, "%s: must have at least 1 item", path[1:])
	}
	d.measures = append(d.measures, refMeasure{at: at, path: path, limit: limit, n: n, items: true})
	return nil
}

// peekError returns the syntax error that made PeekKind report nothing.
func (d *refDecoder) peekError() error {
	_, err := d.dec.ReadToken()
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// str reads a string member value. minLen is the schema's minLength (0 or
// 1): a non-empty string has at least one code point.
func (d *refDecoder) str(path string, minLen int) (string, int64, error) {
	at := d.dec.InputOffset()
	if k := d.dec.PeekKind(); k != '"' {
		if k == 0 {
			return "", at, d.peekError()
		}
		return "", at, d.fail(path, "%s: must be a string, not %s", where(path), jsonenc.KindName(byte(k)))
	}
	// ReadValue validates the string (UTF-8, escapes, surrogate pairs) and
	// returns it quoted. Most strings have no escape, so their bytes are
	// the value: one copy, instead of jsontext unescaping rune by rune.
	v, err := d.dec.ReadValue()
	if err != nil {
		return "", at, err
	}
	var s string
	if raw := v[1 : len(v)-1]; bytes.IndexByte(raw, '\\') < 0 {
		s = string(raw)
	} else {
		b, err := jsontext.AppendUnquote(nil, v)
		if err != nil {
			return "", at, err
		}
		s = string(b)
	}
	if len(s) < minLen {
		return "", at, d.fail(path, "%s: must not be empty (minLength %d)", where(path), minLen)
	}
	return s, at, nil
}

// label reads a source_id, version or citation_id: non-empty, and measured
// against max_label_bytes.
func (d *refDecoder) label(path string) (string, error) {
	s, at, err := d.str(path, 1)
	if err == nil {
		d.measure(at, path, LimitLabelBytes, len(s))
	}
	return s, err
}

// integer reads a non-negative integer member value. The literal is judged
// exactly, as JSON Schema does: 4.0, 4e0 and 40e-1 are the integer 4; 4.5,
// 1e-400 and 4.0000000000000001 are not integers; -0 is 0.
func (d *refDecoder) integer(path string) (int, error) {
	if k := d.dec.PeekKind(); k != '0' {
		if k == 0 {
			return 0, d.peekError()
		}
		return 0, d.fail(path, "%s: must be an integer, not %s", where(path), jsonenc.KindName(byte(k)))
	}
	v, err := d.dec.ReadValue()
	if err != nil {
		return 0, err
	}
	n, class := refParseInteger(v)
	switch class {
	case notInteger:
		return 0, d.fail(path, "%s: %s is not an integer", where(path), Echo(v))
	case outOfRange:
		return 0, d.fail(path, "%s: not I-JSON: integer %s is outside ±(2^53−1)", where(path), Echo(v))
	case negative:
		return 0, d.fail(path, "%s: %s is negative (minimum 0)", where(path), Echo(v))
	}
	return n, nil
}

func (d *refDecoder) source(path string) (Source, error) {
	var s Source
	var have [3]bool
	err := d.object(path, func(name string) error {
		var err error
		p := path + "/" + name
		switch name {
		case "source_id":
			s.SourceID, err = d.label(p)
			have[0] = true
		case "version":
			s.Version, err = d.label(p)
			have[1] = true
		case "text":
			var at int64
			s.Text, at, err = d.str(p, 0)
			d.measure(at, p, LimitTextBytes, len(s.Text))
			have[2] = true
		default:
			err = d.unknown(path, name)
		}
		return err
	})
	if err != nil {
		return s, err
	}
	for i, name := range [3]string{"source_id", "version", "text"} {
		if !have[i] {
			return s, d.fail(path, "%s: required member %q is missing", path[1:], name)
		}
	}
	return s, nil
}

func (d *refDecoder) citation(path string) (Citation, error) {
	var c Citation
	var have [4]bool // citation_id, source_id, version, selector
	var quoteSeen bool
	err := d.object(path, func(name string) error {
		var err error
		p := path + "/" + name
		switch name {
		case "citation_id":
			c.CitationID, err = d.label(p)
			have[0] = true
		case "source_id":
			c.SourceID, err = d.label(p)
			have[1] = true
		case "version":
			c.Version, err = d.label(p)
			have[2] = true
		case "selector":
			c.Selector, err = d.selector(p)
			have[3] = true
		case "quote":
			var at int64
			c.Quote, at, err = d.str(p, 1)
			d.measure(at, p, LimitQuoteBytes, len(c.Quote))
			quoteSeen = true
		case "claimed_start":
			c.ClaimedStart, err = d.integer(p)
			c.HasClaimedStart = true
		default:
			err = d.unknown(path, name)
		}
		return err
	})
	if err != nil {
		return c, err
	}
	for i, name := range [4]string{"citation_id", "source_id", "version", "selector"} {
		if !have[i] {
			return c, d.fail(path, "%s: required member %q is missing", path[1:], name)
		}
	}
	d.items = append(d.items, refItem{path: path, citation: &c, quoteSeen: quoteSeen})
	return c, nil
}

// selector reads a TextPositionSelector or a TextQuoteSelector. Members are
// type-checked as they come (each name has one type in both branches of the
// schema's anyOf); which branch applies is known only at the end, since
// "type" may come last.
func (d *refDecoder) selector(path string) (Selector, error) {
	var s Selector
	var typ string
	var seen struct{ typ, start, end, exact, prefix, suffix bool }
	var contextAt [2]int64
	err := d.object(path, func(name string) error {
		var err error
		p := path + "/" + name
		switch name {
		case "type":
			typ, _, err = d.str(p, 0)
			seen.typ = true
		case "start":
			s.Start, err = d.integer(p)
			seen.start = true
		case "end":
			s.End, err = d.integer(p)
			seen.end = true
		case "exact":
			var at int64
			s.Exact, at, err = d.str(p, 1)
			d.measure(at, p, LimitQuoteBytes, len(s.Exact))
			seen.exact = true
		case "prefix":
			s.Prefix, contextAt[0], err = d.str(p, 0)
			seen.prefix = true
		case "suffix":
			s.Suffix, contextAt[1], err = d.str(p, 0)
			seen.suffix = true
		default:
			err = d.unknown(path, name)
		}
		return err
	})
	if err != nil {
		return s, err
	}
	switch typ {
	case "TextPositionSelector":
		s.Type = PositionSelector
		for _, m := range []struct {
			name string
			ok   bool
		}{{"exact", seen.exact}, {"prefix", seen.prefix}, {"suffix", seen.suffix}} {
			if m.ok {
				return s, d.fail(path+"/"+m.name, "%s/%s: a TextPositionSelector takes no %q (that is a TextQuoteSelector member)", path[1:], m.name, m.name)
			}
		}
		if !seen.start || !seen.end {
			missing := "start"
			if seen.start {
				missing = "end"
			}
			return s, d.fail(path, "%s: a TextPositionSelector needs %q", path[1:], missing)
		}
	case "TextQuoteSelector":
		s.Type = QuoteSelector
		for _, m := range []struct {
			name string
			ok   bool
		}{{"start", seen.start}, {"end", seen.end}} {
			if m.ok {
				return s, d.fail(path+"/"+m.name, "%s/%s: a TextQuoteSelector takes no %q (that is a TextPositionSelector member)", path[1:], m.name, m.name)
			}
		}
		if !seen.exact {
			return s, d.fail(path, "%s: a TextQuoteSelector needs \"exact\"", path[1:])
		}
		if seen.prefix {
			d.measure(contextAt[0], path+"/prefix", LimitContextBytes, len(s.Prefix))
		}
		if seen.suffix {
			d.measure(contextAt[1], path+"/suffix", LimitContextBytes, len(s.Suffix))
		}
	default:
		if !seen.typ {
			return s, d.fail(path, "%s: required member \"type\" is missing (TextPositionSelector or TextQuoteSelector)", path[1:])
		}
		return s, d.fail(path+"/type", "%s/type: %q is neither \"TextPositionSelector\" nor \"TextQuoteSelector\"", path[1:], Echo(typ))
	}
	return s, nil
}

// refParseInteger judges a JSON number literal (already known to be valid
// JSON) by its exact value: the literal is digits × 10^exponent, the
// exponent a big.Int read whole, so no size of it is rounded or cut. A
// value of more than 16 digits before the point is past 2^53−1 without
// building it.
func refParseInteger(lit []byte) (int, integerClass) {
	s := strings.ToLower(string(lit))
	neg := strings.HasPrefix(s, "-")
	mant, expText, _ := strings.Cut(strings.TrimPrefix(s, "-"), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	exp := new(big.Int)
	if expText != "" {
		exp.SetString(strings.TrimPrefix(expText, "+"), 10)
	}
	exp.Sub(exp, big.NewInt(int64(len(frac))))
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return 0, isInteger // 0, -0, 0.000e7
	}
	sig := strings.TrimRight(digits, "0")
	exp.Add(exp, big.NewInt(int64(len(digits)-len(sig))))
	switch {
	case exp.Sign() < 0:
		return 0, notInteger
	case exp.Cmp(big.NewInt(16)) > 0 || int64(len(sig))+exp.Int64() > 16:
		return 0, outOfRange
	}
	v, _ := new(big.Int).SetString(sig, 10)
	v.Mul(v, new(big.Int).Exp(big.NewInt(10), exp, nil))
	if v.Cmp(big.NewInt(MaxSafeInteger)) > 0 {
		return 0, outOfRange
	}
	if neg {
		return 0, negative
	}
	return int(v.Int64()), isInteger
}

// refRules judges the rules across members (spec §1 step 4) over the
// items read, and returns the failure of the first item, in the order
// they were read, that breaks one: a citation's selector type against its
// quote and claimed_start before its id; a (source_id, version) pair or a
// citation_id already taken by an earlier item of its kind.
func refRules(items []refItem) *Error {
	sources := map[[2]string]int{} // pair → index of the first source with it
	citations := map[string]int{}  // citation_id → index of the first citation
	nSources, nCitations := 0, 0
	for _, it := range items {
		if s := it.source; s != nil {
			key := [2]string{s.SourceID, s.Version}
			if j, ok := sources[key]; ok {
				return invalidf(it.path, "%s: sources/%d has the same (source_id, version) pair %q, %q; each pair must be unique", it.path[1:], j, Echo(s.SourceID), Echo(s.Version))
			}
			sources[key] = nSources
			nSources++
			continue
		}
		c, p := it.citation, it.path
		position := c.Selector.Type == PositionSelector
		if position && !it.quoteSeen {
			return invalidf(p, "%s: a TextPositionSelector citation needs a 'quote' (what T[start:end] reads)", p[1:])
		}
		if !position && it.quoteSeen {
			return invalidf(p+"/quote", "%s/quote: a TextQuoteSelector citation takes no 'quote' (its selector's 'exact' is the quote)", p[1:])
		}
		if position && c.HasClaimedStart {
			return invalidf(p+"/claimed_start", "%s/claimed_start: a TextPositionSelector citation takes no 'claimed_start'", p[1:])
		}
		if j, ok := citations[c.CitationID]; ok {
			return invalidf(p+"/citation_id", "%s/citation_id: another citation (citations/%d) has the same citation_id %q", p[1:], j, Echo(c.CitationID))
		}
		citations[c.CitationID] = nCitations
		nCitations++
	}
	return nil
}

// refLimits judges every measure against the contract's limits (spec §1
// step 5) and returns the failure of the value that starts first in the
// body: an array's count from its '[', before a string inside it.
func refLimits(measures []refMeasure) *Error {
	bound := map[string]int{
		LimitSources: MaxSources, LimitCitations: MaxCitations, LimitLabelBytes: MaxLabelBytes,
		LimitTextBytes: MaxTextBytes, LimitQuoteBytes: MaxQuoteBytes, LimitContextBytes: MaxContextBytes,
	}
	var first *refMeasure
	for i := range measures {
		m := &measures[i]
		if m.n > bound[m.limit] && (first == nil || m.at < first.at) {
			first = m
		}
	}
	if first == nil {
		return nil
	}
	what := "bytes"
	if first.items {
		what = "items"
	}
	return limitError(first.path, first.limit, int64(bound[first.limit]), int64(first.n), what)
}
