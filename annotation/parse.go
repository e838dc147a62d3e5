package annotation

import (
	"bytes"
	"strconv"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/go-json-experiment/json/jsontext"
)

// Annotation is one annotation as the checks need it: its id and targets.
type Annotation struct {
	Value   int    // index of the top-level JSON value it was read from
	Pointer string // JSON Pointer of the annotation within that value
	Offset  int64  // byte offset of its first byte in the input
	// Raw is the annotation exactly as in the input, kept only when the
	// scanner is rewriting (see [Scanner.Rewriting]): a check alone holds
	// none of the members it does not use.
	Raw     []byte
	ID      string // "id" (or JSON-LD "@id"); "" when it has none
	Targets []Target
	size    int64 // bytes in the input, Raw or not
	// The span in Raw from the end of the "target" member's name to the
	// end of its value: every byte a rewrite edits is within it.
	targetAt, targetEnd int
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
	// selects (W3C §4.2.9), nil when there is none. A chain is kept to
	// MaxRefinementsKept levels below a target's selector (each kept level
	// costs its pointer, whose length grows with its depth); Refinements
	// counts the whole chain below this selector, every level of which was
	// read and held to the same rules.
	RefinedBy   *Selector
	Refinements int
	// Byte spans, in Raw, of the selector's value and of its start and end
	// literals, for a rewrite.
	at, end, startAt, startEnd, endAt, endEnd int
}

// The selector types the engine checks.
const (
	TextQuote    = "TextQuoteSelector"
	TextPosition = "TextPositionSelector"
)

// MaxRefinementsKept is how many levels of a refinedBy chain are kept in
// [Selector.RefinedBy] and listed in a report; deeper ones are counted.
// Listing each level with its pointer would make the output grow with the
// square of the depth.
const MaxRefinementsKept = 4

// MaxRefinedBy is the longest refinedBy chain read below a target's
// selector: a selector refined more deeply makes its annotation an error
// item. Real chains are a level or two (a range within a fragment); the
// bound keeps the reading of a chain a short, fixed depth of calls in
// every runtime (a JavaScript engine's stack gives out some 1,300 levels
// down, at a depth that varies with its state), so the command and the
// JavaScript package answer alike.
const MaxRefinedBy = 64

// maxTargetNesting bounds Composite, List and Independents resources
// within one another: each level lengthens the pointer of every target
// inside it, so an unbounded nesting would make the output quadratic.
const maxTargetNesting = 4

// path is a JSON Pointer built a token at a time and spelled out only when
// needed: building each level's string eagerly costs the square of the
// depth.
type path struct {
	up  *path
	tok string // escaped; the root holds the whole prefix
}

func (p *path) add(tok string) *path { return &path{p, "/" + jsonenc.EscapePointer(tok)} }
func (p *path) index(i int) *path    { return &path{p, "/" + strconv.Itoa(i)} }

func (p *path) String() string {
	n := 0
	for q := p; q != nil; q = q.up {
		n += len(q.tok)
	}
	b := make([]byte, n)
	for q := p; q != nil; q = q.up {
		n -= len(q.tok)
		copy(b[n:], q.tok)
	}
	return string(b)
}

// parser reads the members of one annotation from the scanner's decoder
// as they stream past: the annotation is never held whole to be read.
type parser struct {
	dec  *jsontext.Decoder
	tee  *tee  // the scanner's, which skips strings for it
	base int64 // input offset of the annotation's '{': spans are relative to it
	off  func() int64
}

// refusal is a malformed member: the annotation is reported, not checked.
type refusal struct{ e *citecheck.Error }

func (r refusal) Error() string { return r.e.Message }

// refuse is the refusal of the member at ptr, msg saying why.
func refuse(ptr *path, msg string) error {
	s := ptr.String()
	return refusal{invalid(s, where(s)+": "+msg)}
}

// duplicate is the refusal of a member named twice in one object: the
// engine reads JSON as I-JSON (RFC 7493 §2.3), and readers disagree on
// which of the two counts (JavaScript and Python take the last).
func duplicate(ptr string, name string) error {
	return refusal{invalid(ptr, where(ptr)+": the member "+strconv.Quote(name)+" is named twice in one object (I-JSON, RFC 7493 §2.3)")}
}

// at is the decoder's position relative to the annotation.
func (p *parser) at() int { return int(p.off() - p.base) }

// names is the set of member names of one object, for the duplicate test.
type names struct {
	list []string
	m    map[string]struct{}
}

// add reports whether name was already there.
func (n *names) add(name string) bool {
	if n.m != nil {
		_, dup := n.m[name]
		n.m[name] = struct{}{}
		return dup
	}
	for _, s := range n.list {
		if s == name {
			return true
		}
	}
	n.list = append(n.list, name)
	if len(n.list) > 16 { // past a few, a linear scan would be quadratic
		n.m = make(map[string]struct{}, 32)
		for _, s := range n.list {
			n.m[s] = struct{}{}
		}
		n.list = nil
	}
	return false
}

// object reads an object, calling member for each member, positioned at
// its value, with the member's pointer; member must consume the value. A
// member named twice is refused.
func (p *parser) object(ptr *path, member func(name string, mp *path) error) error {
	return p.objectAt(ptr, nil, member)
}

// objectAt is object, setting *opened (when not nil) to the offset of its
// '{' in the annotation.
func (p *parser) objectAt(ptr *path, opened *int, member func(name string, mp *path) error) error {
	if _, err := p.dec.ReadToken(); err != nil {
		return err
	}
	if opened != nil {
		*opened = p.at() - 1
	}
	var seen names
	for p.dec.PeekKind() == '"' {
		p.tee.drain(p.off())
		tok, err := p.dec.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String()
		mp := ptr.add(name)
		if seen.add(name) {
			return duplicate(mp.String(), name)
		}
		if err := member(name, mp); err != nil {
			return err
		}
	}
	_, err := p.dec.ReadToken()
	return err
}

// skip consumes a value the checks do not use, holding none of it beyond
// the decoder's buffer and its strings' insides not even there (see
// stringSkip), and refuses a member named twice in any object in it (the
// pointer is spelled out only then). Linear in the value.
func (p *parser) skip() error {
	return skipValue(p.dec, p.tee, true)
}

// skipValue consumes a value, its string values skipped without being
// held (member names are read: the duplicate test needs them); strict, it
// refuses a member named twice in any object in it.
func skipValue(dec *jsontext.Decoder, t *tee, strict bool) error {
	if k := dec.PeekKind(); k != '{' && k != '[' {
		return skipString(dec, t)
	}
	type frame struct {
		obj, wantName bool
		seen          names
	}
	var stack []frame
	for {
		if n := len(stack); n > 0 && !stack[n-1].wantName && dec.PeekKind() == '"' {
			if err := skipString(dec, t); err != nil { // a string value
				return err
			}
			stack[n-1].wantName = stack[n-1].obj
			continue
		}
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		t.drain(dec.InputOffset() + t.shift)
		k := tok.Kind()
		if n := len(stack); n > 0 && stack[n-1].wantName && k == '"' {
			top := &stack[n-1]
			top.wantName = false
			if name := tok.String(); strict && top.seen.add(name) {
				return duplicate(string(dec.StackPointer()), name)
			}
			continue
		}
		switch k {
		case '}', ']':
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return nil
			}
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].wantName = true // this token is a member's value
		}
		switch k {
		case '{':
			stack = append(stack, frame{obj: true, wantName: true})
		case '[':
			stack = append(stack, frame{})
		}
	}
}

// scalar reads a value of which only a string or number is used: an
// object or an array is skipped as skip does (its duplicates refused),
// and read as nil.
func (p *parser) scalar() (jsontext.Value, error) {
	if k := p.dec.PeekKind(); k == '{' || k == '[' {
		return nil, p.skip()
	}
	return p.dec.ReadValue()
}

// member reads one member of an annotation the checks use (id, @id,
// target) into a.
func (p *parser) member(a *Annotation, name string, mp *path) error {
	if name == "target" {
		return p.targets(mp, &a.Targets, 0)
	}
	v, err := p.scalar()
	if err != nil || v == nil {
		return err
	}
	// "id" is the W3C model's, "@id" JSON-LD's spelling of it: "id" wins.
	if a.ID != "" && name == "@id" {
		return nil
	}
	switch v.Kind() {
	case '"':
		a.ID = unquote(v)
	case '0':
		a.ID = string(v)
	}
	return nil
}

// targets reads a target value: an IRI, a resource, or (at the top, or as
// a Composite's items) a list of them. A Composite, List or Independents
// resource's items are its targets.
func (p *parser) targets(ptr *path, out *[]Target, nesting int) error {
	switch k := p.dec.PeekKind(); k {
	case '"':
		v, err := p.dec.ReadValue()
		if err != nil {
			return err
		}
		*out = append(*out, Target{Pointer: ptr.String(), Source: unquote(v)})
		return nil
	case '[':
		if _, err := p.dec.ReadToken(); err != nil {
			return err
		}
		for i := 0; p.dec.PeekKind() != ']'; i++ {
			if p.dec.PeekKind() == '[' {
				return refuse(ptr.index(i), "a target list inside a target list")
			}
			if err := p.targets(ptr.index(i), out, nesting); err != nil {
				return err
			}
		}
		_, err := p.dec.ReadToken()
		return err
	case '{':
		return p.target(ptr, out, nesting)
	default:
		return refuse(ptr, "a target is an IRI or an object, not "+jsonenc.KindName(byte(k)))
	}
}

func (p *parser) target(ptr *path, out *[]Target, nesting int) error {
	t := Target{Pointer: ptr.String()}
	var id resourceIDs
	var items []Target
	hasItems := false
	err := p.object(ptr, func(name string, mp *path) error {
		switch name {
		case "source":
			s, err := p.resourceIRI(mp)
			t.Source = s
			return err
		case "id", "@id":
			return p.readIRIID(name, mp, &id)
		case "items":
			if p.dec.PeekKind() != '[' {
				return p.skip()
			}
			if nesting == maxTargetNesting {
				return refuse(mp, "Composite, List or Independents resources nested more than "+strconv.Itoa(maxTargetNesting)+" deep")
			}
			hasItems = true
			return p.targets(mp, &items, nesting+1)
		case "selector":
			t.selectorArray = p.dec.PeekKind() == '['
			err := p.selectors(mp, &t.Selectors)
			t.selectorEnd = p.at()
			return err
		}
		return p.skip()
	})
	if err != nil {
		return err
	}
	if t.Source == "" {
		t.Source = id.value() // an external resource: the target is the resource itself
	}
	if hasItems && t.Source == "" && t.Selectors == nil {
		*out = append(*out, items...) // a Composite, List or Independents of targets
		return nil
	}
	*out = append(*out, t)
	return nil
}

// resourceIDs holds a resource's "id" (the W3C model's) and "@id" (JSON-LD's
// spelling), string values only: "id" wins, whichever comes first.
type resourceIDs struct{ id, atID string }

// readID reads the value of member name, "id" or "@id", into i.
func (p *parser) readID(name string, i *resourceIDs) error {
	v, err := p.scalar()
	if err == nil && v.Kind() == '"' {
		if name == "id" {
			i.id = unquote(v)
		} else {
			i.atID = unquote(v)
		}
	}
	return err
}

// readIRIID is readID for a target's or a source's id, which is the IRI
// the target is checked against: a value that is not a string (null is
// no id, as JSON-LD reads it) is refused, since reading it as no id would
// check the target against the text given for targets naming no source.
func (p *parser) readIRIID(name string, ptr *path, i *resourceIDs) error {
	if k := p.dec.PeekKind(); k != '"' && k != 'n' {
		// Read first: a member named twice inside is the first refusal.
		if err := p.skip(); err != nil {
			return err
		}
		return refuse(ptr, "an id is an IRI (a string), not "+jsonenc.KindName(byte(k)))
	}
	return p.readID(name, i)
}

// value is the resource's id: "id", else "@id", else "".
func (i resourceIDs) value() string {
	if i.id != "" {
		return i.id
	}
	return i.atID
}

// resourceIRI reads a source: an IRI, or a resource object with an id.
func (p *parser) resourceIRI(ptr *path) (string, error) {
	switch k := p.dec.PeekKind(); k {
	case '"':
		v, err := p.dec.ReadValue()
		if err != nil {
			return "", err
		}
		return unquote(v), nil
	case '{':
		var id resourceIDs
		err := p.object(ptr, func(name string, mp *path) error {
			if name == "id" || name == "@id" {
				return p.readIRIID(name, mp, &id)
			}
			return p.skip()
		})
		if err == nil && id.value() == "" {
			// Only a target that names no source takes the text given for
			// such targets (--source =FILE); a resource object with no IRI
			// names one that cannot be found.
			return "", refuse(ptr, "a source object names its resource by its \"id\", an IRI: this one has none")
		}
		return id.value(), err
	default:
		return "", refuse(ptr, "a source is an IRI or a resource object, not "+jsonenc.KindName(byte(k)))
	}
}

// selectors reads a selector, or a list of them.
func (p *parser) selectors(ptr *path, out *[]Selector) error {
	if p.dec.PeekKind() != '[' {
		s, err := p.selector(ptr, 0)
		if err == nil {
			s.end = p.at()
			*out = append(*out, s)
		}
		return err
	}
	if _, err := p.dec.ReadToken(); err != nil {
		return err
	}
	for i := 0; p.dec.PeekKind() != ']'; i++ {
		if p.dec.PeekKind() == '[' {
			return refuse(ptr.index(i), "a selector list inside a selector list")
		}
		s, err := p.selector(ptr.index(i), 0)
		if err != nil {
			return err
		}
		s.end = p.at()
		*out = append(*out, s)
	}
	_, err := p.dec.ReadToken()
	return err
}

// member is one member of a selector, kept until the type is known (it
// may come last): its value (scalars only: a member that is an object or
// an array is refused by kind, never held) and that value's byte span.
type member struct {
	v       jsontext.Value
	kind    jsontext.Kind
	at, end int
	seen    bool
}

// selector reads one selector object, or an IRI standing for one, level
// refinements below a target's selector. The text selectors are held to
// their W3C definitions: exact a non-empty string, prefix and suffix
// strings, start and end non-negative integers.
func (p *parser) selector(ptr *path, level int) (Selector, error) {
	var s Selector
	if level <= MaxRefinementsKept {
		s.Pointer = ptr.String()
	}
	switch k := p.dec.PeekKind(); k {
	case '"':
		v, err := p.dec.ReadValue()
		s.Type, s.at = "IRI", p.at()-len(v)
		return s, err
	case '{':
	default:
		return s, refuse(ptr, "a selector is an object (or an IRI), not "+jsonenc.KindName(byte(k)))
	}
	s.at = -1 // set once the '{' is read
	var m struct{ typ, exact, prefix, suffix, start, end member }
	err := p.objectAt(ptr, &s.at, func(name string, mp *path) error {
		var slot *member
		switch name {
		case "type", "@type":
			if name == "@type" && m.typ.seen {
				return p.skip() // "type" is the model's own
			}
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
			if level == MaxRefinedBy {
				return refuse(mp, "refinedBy chains are read "+strconv.Itoa(MaxRefinedBy)+" levels deep at most")
			}
			r, err := p.selector(mp, level+1)
			if err != nil {
				return err
			}
			s.Refinements = 1 + r.Refinements
			if level < MaxRefinementsKept {
				s.RefinedBy = &r
			}
			return nil
		default:
			return p.skip()
		}
		k := p.dec.PeekKind()
		if k == '{' || k == '[' {
			*slot = member{kind: k, seen: true}
			return p.skip()
		}
		v, err := p.dec.ReadValue()
		if err != nil {
			return err
		}
		end := p.at()
		*slot = member{v: bytes.Clone(v), kind: k, at: end - len(v), end: end, seen: true}
		return nil
	})
	if err != nil {
		return s, err
	}
	if m.typ.seen && m.typ.kind == '"' {
		s.Type = unquote(m.typ.v)
	}
	switch s.Type {
	case TextQuote:
		var e error
		if s.Exact, e = text(ptr, "exact", m.exact, true); e != nil {
			return s, e
		}
		if s.Prefix, e = text(ptr, "prefix", m.prefix, false); e != nil {
			return s, e
		}
		if s.Suffix, e = text(ptr, "suffix", m.suffix, false); e != nil {
			return s, e
		}
	case TextPosition:
		var e error
		if s.Start, e = index(ptr, "start", m.start); e != nil {
			return s, e
		}
		if s.End, e = index(ptr, "end", m.end); e != nil {
			return s, e
		}
		s.startAt, s.startEnd, s.endAt, s.endEnd = m.start.at, m.start.end, m.end.at, m.end.end
	}
	return s, nil
}

func text(ptr *path, name string, m member, required bool) (string, error) {
	switch {
	case !m.seen && required:
		return "", refuse(ptr, "a "+TextQuote+" needs "+strconv.Quote(name))
	case !m.seen:
		return "", nil
	case m.kind != '"':
		return "", refuse(ptr.add(name), "must be a string, not "+jsonenc.KindName(byte(m.kind)))
	}
	s := unquote(m.v)
	if required && s == "" {
		return "", refuse(ptr.add(name), "must not be empty")
	}
	return s, nil
}

// index reads start or end as the engine reads a citation's (spec §1):
// citecheck.Integer judges the literal by its exact decimal value, so
// 12, 12.0 and 1.2e1 are 12, while 1e-400, 4.0000000000000001 and 1.5 are
// not integers (a binary64 reading would round them to one), and 2^53 is
// outside ±(2^53−1). Linear in the literal.
func index(ptr *path, name string, m member) (int, error) {
	if !m.seen {
		return 0, refuse(ptr, "a "+TextPosition+" needs "+strconv.Quote(name))
	}
	if m.kind != '0' {
		return 0, refuse(ptr.add(name), "must be a number, not "+jsonenc.KindName(byte(m.kind)))
	}
	n, why := citecheck.Integer(m.v)
	if why != "" {
		return 0, refuse(ptr.add(name), citecheck.Echo(m.v.String()).String()+" "+why)
	}
	return n, nil
}

// parse reads one annotation from its bytes (one JSON object), as the
// scanner does: the annotation, or the error item's error. ptr is its
// pointer in the input, for messages. Its Raw is raw's own bytes: the
// scanner does not copy them (a re-read of a rewrite costs the decoder's
// buffer, not two more copies of the annotation).
func parse(raw []byte, ptr string) (*Annotation, *citecheck.Error) {
	var got *Item
	s := NewScanner(bytes.NewReader(raw))
	s.root = ptr
	err := s.Scan(func(it Item) error {
		if got == nil {
			got = &it
		}
		return nil
	})
	switch {
	case err != nil:
		var ce *citecheck.Error
		if e, ok := err.(*citecheck.Error); ok {
			ce = e
		} else {
			ce = invalid(ptr, err.Error())
		}
		return nil, ce
	case got == nil || s.index != 1 || !bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n\uFEFF"), []byte("{")):
		return nil, invalid(ptr, where(ptr)+": not one annotation")
	case got.Err != nil:
		return nil, got.Err
	}
	a := got.Annotation
	a.Raw = raw[a.Offset : a.Offset+a.size : a.Offset+a.size]
	return a, nil
}
