package annotation

import (
	"slices"
	"strconv"
	"strings"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
)

// pageRef is a page's "next" as read: the next page's IRI, or why it is
// none (bad). Read on every object, judged only on a page: an annotation
// may carry a member of that name for its own reasons.
type pageRef struct {
	iri string
	bad string // what the value is instead of an IRI ("a number", "an empty string")
}

// nextIRI reads a "next" member: an IRI, or a JSON-LD node object whose
// "id" (or "@id") is one, as the W3C model allows any IRI to be given.
// null is no next page, as JSON-LD reads it.
func (p *parser) nextIRI(ptr *path, out *pageRef) error {
	switch k := p.dec.PeekKind(); k {
	case '"':
		v, err := p.dec.ReadValue()
		if err != nil {
			return err
		}
		if out.iri = unquote(v); out.iri == "" {
			out.bad = "an empty string"
		}
		return nil
	case '{':
		var id resourceIDs
		err := p.object(ptr, func(name string, _ *path) error {
			if name == "id" || name == "@id" {
				return p.readID(name, &id)
			}
			return p.skip()
		})
		if out.iri = id.value(); out.iri == "" {
			out.bad = "an object with no \"id\""
		}
		return err
	case 'n':
		_, err := p.dec.ReadValue()
		return err
	default:
		out.bad = jsonenc.KindName(byte(k))
		return p.skip()
	}
}

// pageTotal is a collection's or a search response's "total" as read: how
// many annotations the whole holds, or why it is not a count (bad).
type pageTotal struct {
	n   int64
	set bool
	bad string
}

// total reads a "total" member: a whole number of annotations, read by
// the engine's one rule for integers (citecheck.Integer: 0 to 2^53−1).
// null is no total.
func (p *parser) total(_ *path, out *pageTotal) error {
	switch k := p.dec.PeekKind(); k {
	case '0':
		v, err := p.dec.ReadValue()
		if err != nil {
			return err
		}
		n, why := citecheck.Integer(v)
		if why != "" {
			out.bad = citecheck.Echo(string(v)).String() + " " + why
			return nil
		}
		out.n, out.set = int64(n), true
		return nil
	case 'n':
		_, err := p.dec.ReadValue()
		return err
	default:
		out.bad = "not a number but " + jsonenc.KindName(byte(k))
		return p.skip()
	}
}

// judgePage refuses a page (an object with items) whose members about the
// whole it belongs to cannot be read, or that holds more than one list:
// its items were all read and reported, and its error item follows them.
func (s *Scanner) judgePage(ptr *path, lists []string, next pageRef, total pageTotal) *citecheck.Error {
	var e error
	switch {
	case len(lists) > 1:
		q := make([]string, len(lists))
		for i, l := range lists {
			q[i] = `"` + l + `"`
		}
		p := ptr.String()
		return invalid(p, where(p)+": holds items in both "+strings.Join(q, " and ")+" (the items of each were read): pass one list of items in an object")
	case next.bad != "":
		e = refuse(ptr.add("next"), "a page's \"next\" is the IRI of the next page (a string, or an object with an \"id\"), not "+next.bad)
	case total.bad != "":
		e = refuse(ptr.add("total"), "\"total\" is the number of annotations in the whole collection: "+total.bad)
	default:
		return nil
	}
	return e.(refusal).e
}

// Part is what the input says of a whole it is only part of: a page
// whose "next" names the page after it, or a collection or search
// response whose "total" is more than the items it holds.
type Part struct {
	// Next is the "next" of the first page read that has one ("" when
	// none does).
	Next string
	// Total is the "total" of the first collection or search response
	// that holds fewer items than it declares, and Here how many it holds
	// (Total 0 when none does).
	Total int64
	Here  int
}

// Part says whether the input is only part of a collection: ok is false
// when no page read names a next one and no total is more than its items.
// Meaningful once Scan has returned.
func (s *Scanner) Part() (p Part, ok bool) {
	p.Next = s.next
	if s.total >= 0 {
		p.Total, p.Here = s.total, s.totalRead
	}
	return p, p.Next != "" || s.total >= 0
}

// Words is the notice the command and the JavaScript package give for a
// part: one sentence, the IRI quoted with its unprintable characters
// escaped and cut as citecheck.Echo cuts it.
func (p Part) Words() string {
	b := "this is one page of a collection: "
	if p.Total > 0 {
		b += strconv.FormatInt(p.Total, 10) + " annotations in all, " + strconv.Itoa(p.Here) + " here"
		if p.Next == "" {
			return b + "; the others were not checked"
		}
		b += "; "
	}
	return b + "its next page is at " + quoteEcho(p.Next) + ", whose annotations were not checked"
}

// quoteEcho is s quoted as strconv.Quote quotes, cut as citecheck.Echo
// cuts a piece of input (its length in bytes after the quotes).
func quoteEcho(s string) string {
	e := citecheck.Echo(s).String()
	if len(s) <= citecheck.MaxEchoBytes {
		return strconv.Quote(s)
	}
	i := strings.LastIndex(e, " (")
	return strconv.Quote(e[:i]) + e[i:]
}

// Missing counts the targets whose source was not supplied, by the IRI
// they name ("" for the targets that name none).
type Missing map[string]int

// Add counts the targets of r whose outcome is NoSource.
func (m Missing) Add(r *Report) {
	for j, t := range r.Targets {
		if t.Outcome == NoSource {
			m[r.Annotation.Targets[j].Source]++
		}
	}
}

// MaxMissingNamed is how many IRIs the notice of sources not supplied
// names; the others are counted.
const MaxMissingNamed = 5

// Words are the notices for the sources not supplied, in IRI order: one
// for the targets that name no source, saying how to give their text
// (fallback: "--source =FILE" for the command), and one naming the first
// MaxMissingNamed IRIs, quoted as Part.Words quotes, with their counts.
// None when every source was supplied.
func (m Missing) Words(fallback string) (unnamed, named string) {
	if n := m[""]; n > 0 {
		unnamed = strconv.Itoa(n) + " targets name no source: " + fallback + " gives their text"
	}
	iris := m.IRIs()
	if len(iris) == 0 {
		return unnamed, ""
	}
	named = "sources not supplied:"
	for i, iri := range iris {
		if i == MaxMissingNamed {
			named += " and " + strconv.Itoa(len(iris)-MaxMissingNamed) + " more"
			break
		}
		named += " " + quoteEcho(iri) + " (" + strconv.Itoa(m[iri]) + " targets)"
	}
	return unnamed, named
}

// IRIs are the IRIs named and not supplied, sorted ("" is not one).
func (m Missing) IRIs() []string {
	iris := make([]string, 0, len(m))
	for iri := range m {
		if iri != "" {
			iris = append(iris, iri)
		}
	}
	slices.Sort(iris)
	return iris
}
