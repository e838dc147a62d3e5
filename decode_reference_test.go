package citecheck

// The previous decoder, on go-json-experiment/json's jsontext, verbatim but
// for its names (and the cut echoes of issue 13, which both share): the reference of FuzzDecodeAgainstReference and
// TestDecodeMatchesReferenceOnSeeds (decode_diff_test.go). Decode must give
// the same answer on every body: the same Request, or an Error equal in
// code, message, path, limit, max and actual. Its parseInteger is kept too
// (refParseInteger), since Decode's has a fast path of its own; the helpers
// that are not the decoder's (scanBudget and utf16Len, where, escapePointer)
// are shared, and tested on their own.

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/go-json-experiment/json/jsontext"
)

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

	rule      *Error // first rule-across-members failure (spec §1 step 4)
	limit     *Error // first limit failure in document order (step 5)
	limitAt   int64  // input offset of the value that limit names
	sourceIDs map[[2]string]int
	citeIDs   map[string]int
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
	if d.rule != nil {
		return nil, d.rule
	}
	if d.limit != nil {
		return nil, d.limit
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

// noteRule remembers the first rule-across-members failure.
func (d *refDecoder) noteRule(e *Error) {
	if d.rule == nil {
		d.rule = e
	}
}

// noteLimit remembers the limit failure whose value starts earliest in the
// body. at is that value's input offset, so a count limit (at its array's
// '[') outranks a size limit on one of the array's items.
func (d *refDecoder) noteLimit(at int64, e *Error) {
	if d.limit == nil || at < d.limitAt {
		d.limit, d.limitAt = e, at
	}
}

// checkBytes notes a size limit on a decoded string.
func (d *refDecoder) checkBytes(at int64, path, s string, limit string, max int) {
	if len(s) > max {
		d.noteLimit(at, limitError(path, limit, int64(max), int64(len(s)), "bytes"))
	}
}

func (d *refDecoder) body() (*Request, error) {
	req := &Request{}
	var haveSources, haveCitations bool
	err := d.object("", func(name string) error {
		switch name {
		case "sources":
			haveSources = true
			return d.array("/sources", LimitSources, MaxSources, func(i int, path string) error {
				s, err := d.source(path)
				if err == nil {
					req.Sources = append(req.Sources, s)
					d.sourceRules(i, path, req)
				}
				return err
			})
		case "citations":
			haveCitations = true
			return d.array("/citations", LimitCitations, MaxCitations, func(i int, path string) error {
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

// sourceRules checks that source i's (source_id, version) pair is new.
func (d *refDecoder) sourceRules(i int, path string, req *Request) {
	s := req.Sources[i]
	key := [2]string{s.SourceID, s.Version}
	if d.sourceIDs == nil {
		d.sourceIDs = make(map[[2]string]int)
	}
	if j, dup := d.sourceIDs[key]; dup {
		d.noteRule(invalidf(path, "%s: sources/%d has the same (source_id, version) pair %q, %q; each pair must be unique", path[1:], j, Echo(s.SourceID), Echo(s.Version)))
		return
	}
	d.sourceIDs[key] = i
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
		return d.fail(path, "%s: must be an object, not %s", where(path), refKindName(k))
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
// each. An empty array breaks minItems; more than max items is noted as the
// limit, measured on the whole array.
func (d *refDecoder) array(path, limit string, max int, item func(i int, path string) error) error {
	if k := d.dec.PeekKind(); k != '[' {
		if k == 0 {
			return d.peekError()
		}
		return d.fail(path, "%s: must be an array, not %s", where(path), refKindName(k))
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
	if n > max {
		d.noteLimit(at, limitError(path, limit, int64(max), int64(n), "items"))
	}
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
		return "", at, d.fail(path, "%s: must be a string, not %s", where(path), refKindName(k))
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

// label reads a source_id, version or citation_id: non-empty, and noted
// against max_label_bytes.
func (d *refDecoder) label(path string) (string, error) {
	s, at, err := d.str(path, 1)
	if err == nil {
		d.checkBytes(at, path, s, LimitLabelBytes, MaxLabelBytes)
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
		return 0, d.fail(path, "%s: must be an integer, not %s", where(path), refKindName(k))
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
			d.checkBytes(at, p, s.Text, LimitTextBytes, MaxTextBytes)
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
			d.checkBytes(at, p, c.Quote, LimitQuoteBytes, MaxQuoteBytes)
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
	d.citationRules(path, &c, quoteSeen)
	return c, nil
}

// citationRules checks spec §1 step 4 for one citation: its selector type
// decides whether quote and claimed_start belong, and its id must be new.
func (d *refDecoder) citationRules(path string, c *Citation, quoteSeen bool) {
	switch {
	case c.Selector.Type == PositionSelector && !quoteSeen:
		d.noteRule(invalidf(path, "%s: a TextPositionSelector citation needs a 'quote' (what T[start:end] reads)", path[1:]))
	case c.Selector.Type == QuoteSelector && quoteSeen:
		d.noteRule(invalidf(path+"/quote", "%s/quote: a TextQuoteSelector citation takes no 'quote' (its selector's 'exact' is the quote)", path[1:]))
	case c.Selector.Type == PositionSelector && c.HasClaimedStart:
		d.noteRule(invalidf(path+"/claimed_start", "%s/claimed_start: a TextPositionSelector citation takes no 'claimed_start'", path[1:]))
	}
	if d.citeIDs == nil {
		d.citeIDs = make(map[string]int)
	}
	if j, dup := d.citeIDs[c.CitationID]; dup {
		d.noteRule(invalidf(path+"/citation_id", "%s/citation_id: another citation (citations/%d) has the same citation_id %q", path[1:], j, Echo(c.CitationID)))
		return
	}
	d.citeIDs[c.CitationID] = len(d.citeIDs)
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
			d.checkBytes(at, p, s.Exact, LimitQuoteBytes, MaxQuoteBytes)
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
		d.checkBytes(contextAt[0], path+"/prefix", s.Prefix, LimitContextBytes, MaxContextBytes)
		d.checkBytes(contextAt[1], path+"/suffix", s.Suffix, LimitContextBytes, MaxContextBytes)
	default:
		if !seen.typ {
			return s, d.fail(path, "%s: required member \"type\" is missing (TextPositionSelector or TextQuoteSelector)", path[1:])
		}
		return s, d.fail(path+"/type", "%s/type: %q is neither \"TextPositionSelector\" nor \"TextQuoteSelector\"", path[1:], Echo(typ))
	}
	return s, nil
}

// parseInteger judges a JSON number literal (already known to be valid
// JSON) by its exact decimal value, never its nearest binary64. Linear in
// the literal; exponents of any size are handled without overflow.
func refParseInteger(lit []byte) (int, integerClass) {
	neg := len(lit) > 0 && lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	// Split into significant digits and a decimal exponent.
	var digits []byte
	exp := 0
	i := 0
	for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
		i++
	}
	digits = append(digits, lit[:i]...)
	if i < len(lit) && lit[i] == '.' {
		j := i + 1
		for j < len(lit) && lit[j] >= '0' && lit[j] <= '9' {
			j++
		}
		digits = append(digits, lit[i+1:j]...)
		exp -= j - i - 1
		i = j
	}
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		eneg := false
		if lit[i] == '+' || lit[i] == '-' {
			eneg = lit[i] == '-'
			i++
		}
		e := 0
		for ; i < len(lit); i++ {
			if e < 1<<40 { // saturate: beyond this the answer no longer changes
				e = e*10 + int(lit[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	// Strip leading zeros; all zeros is 0 (and -0 is 0).
	k := 0
	for k < len(digits) && digits[k] == '0' {
		k++
	}
	digits = digits[k:]
	if len(digits) == 0 {
		return 0, isInteger
	}
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if exp < 0 {
		return 0, notInteger
	}
	if len(digits)+exp > 16 { // 2^53−1 has 16 digits
		return 0, outOfRange
	}
	var v uint64
	for _, c := range digits {
		v = v*10 + uint64(c-'0')
	}
	for ; exp > 0; exp-- {
		v *= 10
	}
	if v > maxSafeInteger {
		return 0, outOfRange
	}
	if neg {
		return 0, negative
	}
	return int(v), isInteger
}

func refKindName(k jsontext.Kind) string {
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
