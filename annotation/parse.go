package annotation

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"github.com/citecheck/citecheck"
	"github.com/go-json-experiment/json/jsontext"
)

// Annotation is one annotation as the checks need it: its id and targets.
// Every other member is left in Raw, untouched.
type Annotation struct {
	Value   int    // index of the top-level JSON value it was read from
	Pointer string // JSON Pointer of the annotation within that value
	Offset  int64  // byte offset of its first byte in the input
	Raw     []byte // the annotation exactly as in the input
	ID      string // "id" (or JSON-LD "@id"); "" when it has none
	Targets []Target
}

// Target is one target of an annotation: a source IRI and its selectors.
// A target given as a bare IRI, or an external resource ({"id": …}), has
// no selectors.
type Target struct {
	Pointer   string
	Source    string     // the IRI annotated; "" when the target names none
	Selectors []Selector // the target's selector list in input order
	// How the selector member is written, for a rewrite that adds one:
	// selectorArray when it is a list, and the end of its value in Raw
	// (selectorEnd-1 is the ']' of a list, or the '}' of one selector);
	// 0 when it is absent.
	selectorArray bool
	selectorEnd   int
}

// Selector is one selector of a target. Type is its W3C type name as
// written ("" when it has none, "IRI" when the selector is only given by
// reference). The text members are set for TextQuoteSelector, the
// numbers for TextPositionSelector.
type Selector struct {
	Pointer               string
	Type                  string
	Exact, Prefix, Suffix string
	Start, End            int // code point indexes as stored (end exclusive)
	// RefinedBy is the selector applied within the segment this one
	// selects (W3C §4.2.9), nil when there is none.
	RefinedBy *Selector
	// Byte spans, in Raw, of the selector's value and of its start and end
	// literals, for a rewrite.
	at, end, startAt, startEnd, endAt, endEnd int
}

// The selector types the engine checks.
const (
	TextQuote    = "TextQuoteSelector"
	TextPosition = "TextPositionSelector"
)

// parse reads one annotation object from its bytes. ptr is its pointer in
// the input, for messages. Members other than id, target and what the
// selectors hold are skipped, never judged.
func parse(raw []byte, ptr string) (*Annotation, *citecheck.Error) {
	p := parser{dec: jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true))}
	a := &Annotation{Pointer: ptr, Raw: bytes.Clone(raw)}
	// A member named twice counts once, the first time (stores are
	// lenient JSON writers; I-JSON would refuse the document).
	var haveTarget bool
	idFrom := ""
	err := p.object(ptr, func(name, mp string) error {
		switch {
		case (name == "id" || name == "@id") && (idFrom == "" || idFrom == "@id" && name == "id"):
			v, err := p.dec.ReadValue()
			if err != nil {
				return err
			}
			switch v.Kind() {
			case '"':
				a.ID, idFrom = unquote(v), name
			case '0':
				a.ID, idFrom = string(v), name
			}
			return nil
		case name == "target" && !haveTarget:
			haveTarget = true
			return p.targets(mp, &a.Targets, true)
		}
		return p.dec.SkipValue()
	})
	if err != nil {
		return nil, p.failure(err)
	}
	if !haveTarget {
		return nil, invalid(ptr, "%s: not an annotation: it has no \"target\"", where(ptr))
	}
	return a, nil
}

// parser walks one annotation's bytes.
type parser struct {
	dec    *jsontext.Decoder
	opened int // offset of the '{' object read last
}

// refusal is a malformed member: the annotation is reported, not checked.
type refusal struct{ e *citecheck.Error }

func (r refusal) Error() string { return r.e.Message }

func (p *parser) refuse(ptr, format string, args ...any) error {
	return refusal{invalid(ptr, "%s: %s", where(ptr), fmt.Sprintf(format, args...))}
}

func (p *parser) failure(err error) *citecheck.Error {
	if r, ok := err.(refusal); ok {
		return r.e
	}
	// Unreachable: the bytes were one valid JSON object when scanned.
	return invalid("", "%v", err)
}

// object calls member for each member, positioned at its value, with the
// member's pointer; member must consume the value.
func (p *parser) object(ptr string, member func(name, ptr string) error) error {
	if _, err := p.dec.ReadToken(); err != nil {
		return err
	}
	p.opened = int(p.dec.InputOffset()) - 1
	for p.dec.PeekKind() == '"' {
		tok, err := p.dec.ReadToken()
		if err != nil {
			return err
		}
		if err := member(tok.String(), ptr+"/"+escapePointer(tok.String())); err != nil {
			return err
		}
	}
	_, err := p.dec.ReadToken()
	return err
}

// targets reads a target value: an IRI, a resource, or (top) a list of them.
// A Composite, List or Independents resource's items are its targets.
func (p *parser) targets(ptr string, out *[]Target, top bool) error {
	switch k := p.dec.PeekKind(); k {
	case '"':
		v, err := p.dec.ReadValue()
		if err != nil {
			return err
		}
		*out = append(*out, Target{Pointer: ptr, Source: unquote(v)})
		return nil
	case '[':
		if !top {
			return p.refuse(ptr, "a target list inside a target list")
		}
		if _, err := p.dec.ReadToken(); err != nil {
			return err
		}
		for i := 0; p.dec.PeekKind() != ']'; i++ {
			if err := p.targets(ptr+"/"+strconv.Itoa(i), out, false); err != nil {
				return err
			}
		}
		_, err := p.dec.ReadToken()
		return err
	case '{':
		return p.target(ptr, out)
	default:
		return p.refuse(ptr, "a target is an IRI or an object, not %s", kindName(k))
	}
}

func (p *parser) target(ptr string, out *[]Target) error {
	t := Target{Pointer: ptr}
	var id string
	var items []Target
	seen := map[string]bool{}
	err := p.object(ptr, func(name, mp string) error {
		if seen[name] { // the first of a repeated member counts
			return p.dec.SkipValue()
		}
		seen[name] = true
		switch name {
		case "source":
			s, err := p.resourceIRI(mp)
			t.Source = s
			return err
		case "id", "@id":
			v, err := p.dec.ReadValue()
			if err == nil && v.Kind() == '"' && (id == "" || name == "id") {
				id = unquote(v)
			}
			return err
		case "items":
			if p.dec.PeekKind() != '[' {
				return p.dec.SkipValue()
			}
			return p.targets(mp, &items, true)
		case "selector":
			t.selectorArray = p.dec.PeekKind() == '['
			err := p.selectors(mp, &t.Selectors)
			t.selectorEnd = int(p.dec.InputOffset())
			return err
		}
		return p.dec.SkipValue()
	})
	if err != nil {
		return err
	}
	if t.Source == "" {
		t.Source = id // an external resource: the target is the resource itself
	}
	if items != nil && t.Source == "" && t.Selectors == nil {
		*out = append(*out, items...) // a Composite, List or Independents of targets
		return nil
	}
	*out = append(*out, t)
	return nil
}

// resourceIRI reads a source: an IRI, or a resource object with an id.
func (p *parser) resourceIRI(ptr string) (string, error) {
	switch k := p.dec.PeekKind(); k {
	case '"':
		v, err := p.dec.ReadValue()
		if err != nil {
			return "", err
		}
		return unquote(v), nil
	case '{':
		var id string
		err := p.object(ptr, func(name, _ string) error {
			if name == "id" || name == "@id" {
				v, err := p.dec.ReadValue()
				if err == nil && v.Kind() == '"' {
					id = unquote(v)
				}
				return err
			}
			return p.dec.SkipValue()
		})
		return id, err
	default:
		return "", p.refuse(ptr, "a source is an IRI or a resource object, not %s", kindName(k))
	}
}

// selectors reads a selector, or a list of them.
func (p *parser) selectors(ptr string, out *[]Selector) error {
	if p.dec.PeekKind() != '[' {
		s, err := p.selector(ptr)
		if err == nil {
			*out = append(*out, s)
		}
		return err
	}
	if _, err := p.dec.ReadToken(); err != nil {
		return err
	}
	for i := 0; p.dec.PeekKind() != ']'; i++ {
		if p.dec.PeekKind() == '[' {
			return p.refuse(ptr+"/"+strconv.Itoa(i), "a selector list inside a selector list")
		}
		s, err := p.selector(ptr + "/" + strconv.Itoa(i))
		if err != nil {
			return err
		}
		s.end = int(p.dec.InputOffset())
		*out = append(*out, s)
	}
	_, err := p.dec.ReadToken()
	return err
}

// member is one member of a selector, kept until the type is known (it
// may come last): its value and that value's byte span.
type member struct {
	v       jsontext.Value
	at, end int
	seen    bool
}

// selector reads one selector object, or an IRI standing for one. The text
// selectors are held to their W3C definitions: exact a non-empty string,
// prefix and suffix strings, start and end non-negative integers.
func (p *parser) selector(ptr string) (Selector, error) {
	s := Selector{Pointer: ptr}
	switch k := p.dec.PeekKind(); k {
	case '"':
		v, err := p.dec.ReadValue()
		s.Type, s.at = "IRI", int(p.dec.InputOffset())-len(v)
		return s, err
	case '{':
		s.at = -1 // set once '{' is read
	default:
		return s, p.refuse(ptr, "a selector is an object (or an IRI), not %s", kindName(k))
	}
	var m struct{ typ, exact, prefix, suffix, start, end member }
	err := p.object(ptr, func(name, mp string) error {
		if s.at < 0 {
			s.at = p.opened
		}
		var slot *member
		switch name {
		case "type", "@type":
			slot = &m.typ
		case "exact":
			slot = &m.exact
		case "prefix":
			slot = &m.prefix
		case "suffix":
			slot = &m.suffix
		case "start":
			slot = &m.start
		case "end":
			slot = &m.end
		case "refinedBy":
			if s.RefinedBy != nil { // the first of a repeated member counts
				return p.dec.SkipValue()
			}
			r, err := p.selector(mp)
			s.RefinedBy = &r
			return err
		default:
			return p.dec.SkipValue()
		}
		v, err := p.dec.ReadValue()
		if err != nil {
			return err
		}
		if !slot.seen {
			end := int(p.dec.InputOffset())
			*slot = member{v: bytes.Clone(v), at: end - len(v), end: end, seen: true}
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	if s.at < 0 { // an empty object: no member set it, and nothing nested moved opened
		s.at = p.opened
	}
	if m.typ.seen && m.typ.v.Kind() == '"' {
		s.Type = unquote(m.typ.v)
	}
	switch s.Type {
	case TextQuote:
		var e error
		if s.Exact, e = p.text(ptr, "exact", m.exact, true); e != nil {
			return s, e
		}
		if s.Prefix, e = p.text(ptr, "prefix", m.prefix, false); e != nil {
			return s, e
		}
		if s.Suffix, e = p.text(ptr, "suffix", m.suffix, false); e != nil {
			return s, e
		}
	case TextPosition:
		var e error
		if s.Start, e = p.index(ptr, "start", m.start); e != nil {
			return s, e
		}
		if s.End, e = p.index(ptr, "end", m.end); e != nil {
			return s, e
		}
		s.startAt, s.startEnd, s.endAt, s.endEnd = m.start.at, m.start.end, m.end.at, m.end.end
	}
	return s, nil
}

func (p *parser) text(ptr, name string, m member, required bool) (string, error) {
	switch {
	case !m.seen && required:
		return "", p.refuse(ptr, "a %s needs %q", TextQuote, name)
	case !m.seen:
		return "", nil
	case m.v.Kind() != '"':
		return "", p.refuse(ptr+"/"+name, "must be a string, not %s", kindName(m.v.Kind()))
	}
	s := unquote(m.v)
	if required && s == "" {
		return "", p.refuse(ptr+"/"+name, "must not be empty")
	}
	return s, nil
}

// index reads start or end: a non-negative integer, written as any JSON
// number whose value is one (12, 12.0, 1.2e1), up to 2^53-1.
func (p *parser) index(ptr, name string, m member) (int, error) {
	if !m.seen {
		return 0, p.refuse(ptr, "a %s needs %q", TextPosition, name)
	}
	if m.v.Kind() != '0' {
		return 0, p.refuse(ptr+"/"+name, "must be a number, not %s", kindName(m.v.Kind()))
	}
	f, err := strconv.ParseFloat(string(m.v), 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f > 1<<53-1 {
		return 0, p.refuse(ptr+"/"+name, "%s is not a non-negative integer", m.v)
	}
	return int(f), nil
}
