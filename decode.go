package citecheck

import (
	"io"
	"math/bits"
	"strconv"
	"strings"
	"unicode"

	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/citecheck/citecheck/internal/utext"
)

// MaxSafeInteger is 2^53−1, the largest integer I-JSON (RFC 7493 §2.2) lets
// an implementation rely on: every integer citecheck reads, in a request or
// in the inputs its commands and tools read around one, is within
// ±MaxSafeInteger, so that sums of a few of them never overflow an int.
const MaxSafeInteger = 1<<53 - 1

// Decode reads a request body and returns the validated Request, or the
// first failure of spec §1, in its order: size, I-JSON, schema, rules across
// members, limits, scan budget.
//
// The body is not modified or retained: the Request's strings are copies,
// so the caller may reuse the body at once ([DecodeShared] does not copy).
// Each string is written once, decoded; together they take at most the
// body's bytes (about their own size when nothing is escaped).
//
// Cost: linear in the body: one pass over each string to validate it and
// one to copy it, or for a string with an escape one pass that does both.
// Decoding stops at the first I-JSON or schema failure; limit failures
// are only reported once the whole body is known to be well formed,
// because every invalid_input outranks every limit_exceeded.
func Decode(body []byte) (*Request, error) { return DecodeWith(body, DefaultLimits()) }

// DecodeWith is [Decode] under lim instead of the contract's limits: the
// same rules in the same order, each limit failure naming lim's bound.
// The contract's interfaces use Decode. Cost: linear in the body, as Decode.
func DecodeWith(body []byte, lim Limits) (*Request, error) {
	return withError(decode(body, lim, strStore{}))
}

// DecodeShared is [DecodeWith] for a body that its caller keeps, unchanged,
// for as long as the Request is in use: every long string written without
// escapes (over 512 bytes: the texts, most of all) is the body's own bytes,
// not a copy. The rules, the errors and the Request are DecodeWith's; only
// the memory differs. For a body that is not reused, such as a file mapped
// for one run, this spares a copy of every text and the fresh pages it
// would fill (docs/decoder.md, "Sharing the body"). Cost: as DecodeWith, less
// one copy of those strings.
func DecodeShared(body []byte, lim Limits) (*Request, error) {
	return withError(decode(body, lim, strStore{shared: true}))
}

// decode is DecodeWith and DecodeShared, which keep strings in st.
func decode(body []byte, lim Limits, st strStore) (*Request, *Error) {
	if len(body) > lim.InputBytes {
		return nil, limitError("", LimitInputBytes, int64(lim.InputBytes), int64(len(body)), "bytes")
	}
	d := decoder{s: scanner{buf: body[:len(body):len(body)], st: st}, lim: lim} // strings' raw bytes read ahead up to the body's end, never past it
	return d.request()
}

// ReadBody reads a request body from r, reading at most MaxInputBytes+1
// bytes: a larger body is limit_exceeded (actual = MaxInputBytes+1, since
// the rest is never read). A read failure is reported as invalid_input with
// the reader's message.
func ReadBody(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, invalid("", "body: could not be read: "+err.Error())
	}
	if len(body) > MaxInputBytes {
		return nil, BodyTooLarge(int64(len(body)))
	}
	return body, nil
}

// BodyTooLarge is the limit_exceeded error for a body of actual bytes, over
// max_input_bytes. A reader that stops at the limit reports MaxInputBytes+1.
// Never nil.
func BodyTooLarge(actual int64) *Error {
	return limitError("", LimitInputBytes, MaxInputBytes, actual, "bytes")
}

// decoder walks the token stream once. Schema failures end the walk at once
// (after reading the rest for a syntax error, which outranks them); rule and
// limit failures are remembered, earliest first, and reported after the walk.
type decoder struct {
	s   scanner
	lim Limits // the bounds of spec §1 steps 5 and 6

	rule      *Error           // first rule-across-members failure (spec §1 step 4)
	limit     *Error           // first limit failure in document order (step 5)
	limitAt   int64            // input offset of the value that limit names
	sourceIDs idSet[[2]string] // each (source_id, version) pair, with its source
	asciiText []bool           // per source: its text is ASCII, as the scanner saw (for scanBudget)
	citeIDs   idSet[string]    // each citation_id, with its citation
}

// fault ends the walk: an I-JSON failure of the scanner, or a schema
// failure.
type fault struct {
	syn    *synErr
	schema *Error
}

func (d *decoder) request() (*Request, *Error) {
	req, f := d.body()
	if f == nil {
		// A valid value must also be the only one: trailing bytes other than
		// white space make the body not one JSON text.
		if d.s.peekKind() != 0 {
			return nil, d.secondValue()
		}
		if _, err := d.s.readToken(); err != nil && !err.rawEOF {
			return nil, syntaxError(err)
		}
	} else {
		if f.syn != nil {
			return nil, syntaxError(f.syn)
		}
		// An I-JSON failure later in the body still outranks this schema
		// failure (step order always wins), so read on, tokens only.
		// A second top-level value is such a failure too.
		for {
			if _, err := d.s.readToken(); err != nil {
				if !err.rawEOF {
					return nil, syntaxError(err)
				}
				break
			}
			if d.s.depth() == 0 && d.s.peekKind() != 0 {
				return nil, d.secondValue()
			}
		}
		return nil, f.schema
	}
	if d.rule != nil {
		return nil, d.rule
	}
	if d.limit != nil {
		return nil, d.limit
	}
	if e := scanBudget(req, &d.sourceIDs, d.asciiText, d.lim.ScanUnits); e != nil {
		return nil, e
	}
	return req, nil
}

// secondValue is the I-JSON failure of a body holding more than one value;
// the decoder is at the end of the first.
func (d *decoder) secondValue() *Error {
	return invalid("", "body: not one JSON text: another value follows the one that ends at byte "+strconv.FormatInt(d.s.inputOffset(), 10))
}

// syntaxError turns a scanner failure (malformed JSON, invalid UTF-8, a
// lone surrogate escape, a duplicate member name, a truncated body) into
// the invalid_input error. The path is the body's, unless one value is to
// blame: the second of two names, the string that holds a bad surrogate.
func syntaxError(e *synErr) *Error {
	if e.rawEOF {
		return invalid("", "body: not one complete JSON text (unexpected end of input)")
	}
	msg, path := e.msg, ""
	switch {
	case e.dup:
		path = e.ptr
	case strings.Contains(msg, "surrogate"):
		path = e.ptr
		msg = "string contains an unpaired surrogate escape (" + msg + ")"
	}
	msg += " at byte " + strconv.Itoa(e.offset)
	return invalid(path, where(path)+": not I-JSON: "+msg)
}

func (d *decoder) syn(e *synErr) *fault { return &fault{syn: e} }

func (d *decoder) fail(path, msg string) *fault {
	return &fault{schema: invalid(path, msg)}
}

// noteRule remembers the first rule-across-members failure.
func (d *decoder) noteRule(e *Error) {
	if d.rule == nil {
		d.rule = e
	}
}

// noteLimit remembers the limit failure whose value starts earliest in the
// body. at is that value's input offset, so a count limit (at its array's
// '[') outranks a size limit on one of the array's items.
func (d *decoder) noteLimit(at int64, e *Error) {
	if d.limit == nil || at < d.limitAt {
		d.limit, d.limitAt = e, at
	}
}

// checkBytes notes a size limit on a decoded string, the member name of l.
// Small enough to be inlined: every string member of the request pays it.
func (d *decoder) checkBytes(at int64, l loc, name, s string, limit string, max int) {
	if len(s) > max {
		d.tooLong(at, l, name, len(s), limit, max)
	}
}

func (d *decoder) tooLong(at int64, l loc, name string, n int, limit string, max int) {
	d.noteLimit(at, limitError(l.member(name), limit, int64(max), int64(n), "bytes"))
}

// loc names an object of the request for messages and pointers, which are
// only built when a failure is reported: the body (arr ""), an array
// (item -1), an item, or a citation's selector.
type loc struct {
	arr  string // "sources" or "citations"
	item int
	sel  bool
}

var bodyLoc = loc{item: -1}

func (l loc) path() string {
	if l.arr == "" {
		return ""
	}
	p := "/" + l.arr
	if l.item >= 0 {
		p += "/" + strconv.Itoa(l.item)
	}
	if l.sel {
		p += "/selector"
	}
	return p
}

// member is the pointer to member name of the object l.
func (l loc) member(name string) string { return l.path() + "/" + name }

func (d *decoder) body() (*Request, *fault) {
	req := &Request{}
	if f := d.open(bodyLoc, bodyMembers); f != nil {
		return nil, f
	}
	for d.more() {
		m, f := d.member()
		if f != nil {
			return nil, f
		}
		switch m {
		case bodySources:
			f = d.array(loc{arr: "sources", item: -1}, LimitSources, d.lim.Sources, func(i int) *fault {
				l := loc{arr: "sources", item: i}
				s, ascii, f := d.source(l)
				if f == nil {
					d.asciiText = append(d.asciiText, ascii)
					if req.Sources == nil {
						req.Sources = make([]Source, 0, d.room(d.lim.Sources, minSourceBytes))
					}
					req.Sources = append(req.Sources, s)
					d.sourceRules(i, l, req)
				}
				return f
			})
		case bodyCitations:
			f = d.array(loc{arr: "citations", item: -1}, LimitCitations, d.lim.Citations, func(i int) *fault {
				// Read into its place in the slice, not copied there: a
				// failure ends the walk and the Request with it.
				if req.Citations == nil {
					req.Citations = make([]Citation, 0, d.room(d.lim.Citations, minCitationBytes))
				}
				req.Citations = append(req.Citations, Citation{})
				return d.citation(loc{arr: "citations", item: i}, &req.Citations[i])
			})
		default:
			f = d.unknown(bodyLoc)
		}
		if f != nil {
			return nil, f
		}
	}
	seen, f := d.close()
	if f != nil {
		return nil, f
	}
	if m := firstIndex((1<<bodySources | 1<<bodyCitations) &^ seen); m >= 0 {
		return nil, d.fail("", "body: required member "+strconv.Quote(bodyMembers.names[m])+" is missing")
	}
	return req, nil
}

// The fewest bytes a valid source or citation takes in a body, as in
// {"source_id":"a","version":"a","text":""}: the rest of the body bounds how
// many more can come.
const (
	minSourceBytes   = len(`{"source_id":"a","version":"a","text":""}`)
	minCitationBytes = len(`{"citation_id":"a","source_id":"a","version":"a","selector":{"type":"TextQuoteSelector","exact":"a"}}`)
)

// room is the capacity to give a slice of items of at least size bytes
// each, the first just read: as many as the rest of the body can hold, at
// most max (more would break a limit and are let grow).
func (d *decoder) room(max, size int) int {
	return min(max, 1+(len(d.s.buf)-d.s.prevEnd)/size)
}

// sourceRules checks that source i's (source_id, version) pair is new.
func (d *decoder) sourceRules(i int, l loc, req *Request) {
	s := req.Sources[i]
	if j, ok := d.sourceIDs.add([2]string{s.SourceID, s.Version}, hashPair(s.SourceID, s.Version), i); !ok {
		path := l.path()
		d.noteRule(invalid(path, path[1:]+": sources/"+strconv.Itoa(j)+" has the same (source_id, version) pair "+Echo(s.SourceID).Quoted()+", "+Echo(s.Version).Quoted()+"; each pair must be unique"))
	}
}

// idSet is a set of keys, each with the index of the item that brought it
// first: open addressing, linear probing, in a table of a power of two
// slots kept at most half full. The decoder's few keys (ids and pairs of
// them, short strings) cost it one hash and mostly one probe each, without
// a map's groups and its hash's call.
type idSet[K comparable] struct {
	keys   []K
	hashes []uint32
	items  []int32 // item index + 1; 0 for an empty slot
	n      int
}

// sized gives t, still empty, room for about n keys.
func (t *idSet[K]) sized(n int) {
	if t.items == nil && n > 8 {
		t.make(1 << bits.Len(uint(2*n-1)))
	}
}

func (t *idSet[K]) make(size int) {
	t.keys, t.hashes, t.items = make([]K, size), make([]uint32, size), make([]int32, size)
}

// add adds key, whose hash is h, for item i, and returns (i, true); a key
// already there is left with its item j, and add returns (j, false).
func (t *idSet[K]) add(key K, h uint32, i int) (int, bool) {
	if 2*(t.n+1) > len(t.items) {
		t.grow()
	}
	mask := uint32(len(t.items) - 1)
	for p := h & mask; ; p = (p + 1) & mask {
		switch {
		case t.items[p] == 0:
			t.keys[p], t.hashes[p], t.items[p] = key, h, int32(i+1)
			t.n++
			return i, true
		case t.hashes[p] == h && t.keys[p] == key:
			return int(t.items[p] - 1), false
		}
	}
}

// find returns the item of key, whose hash is h, and whether it is there.
func (t *idSet[K]) find(key K, h uint32) (int, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := uint32(len(t.items) - 1)
	for p := h & mask; t.items[p] != 0; p = (p + 1) & mask {
		if t.hashes[p] == h && t.keys[p] == key {
			return int(t.items[p] - 1), true
		}
	}
	return 0, false
}

// grow doubles the table (from 16 slots), moving each key to its slot.
func (t *idSet[K]) grow() {
	old := *t
	size := max(16, 2*len(old.items))
	t.make(size)
	mask := uint32(size - 1)
	for q, it := range old.items {
		if it == 0 {
			continue
		}
		p := old.hashes[q] & mask
		for t.items[p] != 0 {
			p = (p + 1) & mask
		}
		t.keys[p], t.hashes[p], t.items[p] = old.keys[q], old.hashes[q], it
	}
}

// hashString is FNV-1a of s, then mixed so that its low bits, which pick
// the slot, depend on every byte. Cost: linear in s, a few operations a byte.
func hashString(s string) uint32 { return mix(fnv(14695981039346656037, s)) }

// hashPair is hashString's for a pair of strings.
func hashPair(a, b string) uint32 { return mix(fnv(fnv(14695981039346656037, a)^0xFF, b)) }

func fnv(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// mix is the finaliser of MurmurHash3 (fmix64).
func mix(h uint64) uint32 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return uint32(h ^ h>>33)
}

// requiredMissing is the failure of object l without its member name.
func (d *decoder) requiredMissing(l loc, name string) *fault {
	path := l.path()
	return d.fail(path, path[1:]+": required member "+strconv.Quote(name)+" is missing")
}

// unknown is the failure of the member just read in object l, not one of
// its members.
func (d *decoder) unknown(l loc) *fault {
	name := d.s.lastName()
	p := l.member(jsonenc.EscapePointer(name))
	return d.fail(p, where(p)+": member "+Echo(name).Quoted()+" is not allowed")
}

// The member names of each object the walk knows, by index: the order of
// each set is the order in which missing required members are reported.
var (
	bodyMembers     = newMemberSet("sources", "citations")
	sourceMembers   = newMemberSet("source_id", "version", "text")
	citationMembers = newMemberSet("citation_id", "source_id", "version", "selector", "quote", "claimed_start")
	selectorMembers = newMemberSet("type", "start", "end", "exact", "prefix", "suffix")
)

const (
	bodySources = iota
	bodyCitations
)

const (
	sourceID = iota
	sourceVersion
	sourceText
)

const (
	citationID = iota
	citationSourceID
	citationVersion
	citationSelector
	citationQuote
	citationClaimedStart
)

const (
	selectorType = iota
	selectorStart
	selectorEnd
	selectorExact
	selectorPrefix
	selectorSuffix
)

// firstIndex is the lowest index in a set of member indexes (bit i for index
// i), or -1 for none.
func firstIndex(set uint64) int {
	if set == 0 {
		return -1
	}
	return bits.TrailingZeros64(set)
}

// open reads the '{' of an object at l whose members are those of t. The
// walk then reads the members with more and member, each value after its
// name, and the '}' with close: in the caller's own loop, so that a member
// costs no call through a closure and the caller's fields no indirection.
func (d *decoder) open(l loc, t *memberSet) *fault {
	if k := d.s.peekKind(); k != '{' {
		if k == 0 {
			return d.peekError()
		}
		path := l.path()
		return d.fail(path, where(path)+": must be an object, not "+jsonenc.KindName(byte(k)))
	}
	if err := d.s.openObject(t); err != nil {
		return d.syn(err)
	}
	return nil
}

// more reports whether a member name comes next in the open object.
func (d *decoder) more() bool { return d.s.peekKind() == '"' }

// member reads the member name that more found, with the scanner then at
// its value: its index in the object's member set, or -1 for another
// name (which unknown reports).
func (d *decoder) member() (int, *fault) {
	m, err := d.s.member()
	if err != nil {
		return 0, &fault{syn: err} // not d.syn: member stays small enough to be inlined, and every name pays it
	}
	return m, nil
}

// close reads the object's '}', or the syntax error in its place, and
// returns the set of its members read (bit i for index i of its set).
func (d *decoder) close() (uint64, *fault) {
	seen := d.s.seen()
	var err *synErr
	if d.s.peekKind() == '}' {
		err = d.s.closeObject()
	} else {
		_, err = d.s.readToken() // the failure in the '}''s place
	}
	if err != nil {
		return 0, d.syn(err)
	}
	return seen, nil
}

// array reads an array at l whose items must be objects, calling item for
// each. An empty array breaks minItems; more than max items is noted as the
// limit, measured on the whole array.
func (d *decoder) array(l loc, limit string, max int, item func(i int) *fault) *fault {
	if k := d.s.peekKind(); k != '[' {
		if k == 0 {
			return d.peekError()
		}
		path := l.path()
		return d.fail(path, where(path)+": must be an array, not "+jsonenc.KindName(byte(k)))
	}
	at := d.s.inputOffset()
	if _, err := d.s.readToken(); err != nil {
		return d.syn(err)
	}
	n := 0
	for k := d.s.peekKind(); k != ']'; k = d.s.peekKind() {
		if k == 0 {
			return d.peekError()
		}
		if f := item(n); f != nil {
			return f
		}
		n++
	}
	if _, err := d.s.readToken(); err != nil {
		return d.syn(err)
	}
	if n == 0 {
		path := l.path()
		return d.fail(path, path[1:]+": must have at least 1 item")
	}
	if n > max {
		d.noteLimit(at, limitError(l.path(), limit, int64(max), int64(n), "items"))
	}
	return nil
}

// peekError returns the failure that made peekKind report nothing.
func (d *decoder) peekError() *fault {
	_, err := d.s.readToken()
	if err == nil {
		err = &synErr{rawEOF: true}
	}
	return d.syn(err)
}

// rawString reads a string member value: its inside as written, whether it
// has escapes, and the input offset before it. minLen is the schema's
// minLength (0 or 1): a non-empty string has at least one code point.
func (d *decoder) rawString(l loc, name string, minLen int) (raw []byte, escaped bool, n int, at int64, f *fault) {
	at = d.s.inputOffset()
	if d.s.peekKind() != '"' {
		return nil, false, 0, at, d.notString(l, name)
	}
	raw, escaped, n, err := d.s.readString()
	if err != nil || n < minLen {
		return nil, false, 0, at, d.badString(l, name, minLen, err)
	}
	return raw, escaped, n, at, nil
}

// str reads a string member value of at least minLen code points and
// keeps it; at is its input offset. A value of more than max bytes is
// noted against limit; max < 0 leaves the limit to the caller. It reads
// the value as rawString does, itself: every string the Request keeps
// comes through here, and a call less per string is worth the four lines.
func (d *decoder) str(l loc, name string, minLen int, limit string, max int) (s string, at int64, f *fault) {
	at = d.s.inputOffset()
	if d.s.peekKind() != '"' {
		return "", at, d.notString(l, name)
	}
	raw, escaped, n, err := d.s.readString()
	if err != nil || n < minLen {
		return "", at, d.badString(l, name, minLen, err)
	}
	s = d.s.st.keep(raw, escaped, n, len(d.s.buf)-int(at))
	if max >= 0 {
		d.checkBytes(at, l, name, s, limit, max)
	}
	return s, at, nil
}

// notString is the failure of a member value that should be a string and
// is not, or of the syntax error in its place.
func (d *decoder) notString(l loc, name string) *fault {
	k := d.s.peekKind()
	if k == 0 {
		return d.peekError()
	}
	p := l.member(name)
	return d.fail(p, where(p)+": must be a string, not "+jsonenc.KindName(byte(k)))
}

// badString is the failure of a string member value that is not well
// formed (err), or else shorter than minLen code points.
func (d *decoder) badString(l loc, name string, minLen int, err *synErr) *fault {
	if err != nil {
		return d.syn(err)
	}
	p := l.member(name)
	return d.fail(p, where(p)+": must not be empty (minLength "+strconv.Itoa(minLen)+")")
}

// label reads a source_id, version or citation_id: non-empty, and noted
// against max_label_bytes.
func (d *decoder) label(l loc, name string) (string, *fault) {
	s, _, f := d.str(l, name, 1, LimitLabelBytes, d.lim.LabelBytes)
	return s, f
}

// integer reads a non-negative integer member value. The literal is judged
// exactly, as JSON Schema does: 4.0, 4e0 and 40e-1 are the integer 4; 4.5,
// 1e-400 and 4.0000000000000001 are not integers; -0 is 0.
func (d *decoder) integer(l loc, name string) (int, *fault) {
	if k := d.s.peekKind(); k != '0' {
		if k == 0 {
			return 0, d.peekError()
		}
		p := l.member(name)
		return 0, d.fail(p, where(p)+": must be an integer, not "+jsonenc.KindName(byte(k)))
	}
	if n, ok := d.s.smallInteger(); ok {
		return n, nil
	}
	v, err := d.s.readNumber()
	if err != nil {
		return 0, d.syn(err)
	}
	n, class := parseInteger(v)
	switch class {
	case notInteger:
		p := l.member(name)
		return 0, d.fail(p, where(p)+": "+Echo(v).String()+" is not an integer")
	case outOfRange:
		p := l.member(name)
		return 0, d.fail(p, where(p)+": not I-JSON: integer "+Echo(v).String()+" is outside ±(2^53−1)")
	case negative:
		p := l.member(name)
		return 0, d.fail(p, where(p)+": "+Echo(v).String()+" is negative (minimum 0)")
	}
	return n, nil
}

// source reads source l; ascii reports that its text is all ASCII.
func (d *decoder) source(l loc) (s Source, ascii bool, f *fault) {
	if f := d.open(l, sourceMembers); f != nil {
		return s, false, f
	}
	for d.more() {
		m, f := d.member()
		if f != nil {
			return s, false, f
		}
		switch m {
		case sourceID:
			s.SourceID, f = d.label(l, "source_id")
		case sourceVersion:
			s.Version, f = d.label(l, "version")
		case sourceText:
			d.s.wide = false
			s.Text, _, f = d.str(l, "text", 0, LimitTextBytes, d.lim.TextBytes)
			ascii = !d.s.wide
		default:
			f = d.unknown(l)
		}
		if f != nil {
			return s, false, f
		}
	}
	seen, f := d.close()
	if f != nil {
		return s, false, f
	}
	if m := firstIndex((1<<sourceID | 1<<sourceVersion | 1<<sourceText) &^ seen); m >= 0 {
		return s, false, d.requiredMissing(l, sourceMembers.names[m])
	}
	return s, ascii, nil
}

func (d *decoder) citation(l loc, c *Citation) *fault {
	if f := d.open(l, citationMembers); f != nil {
		return f
	}
	for d.more() {
		m, f := d.member()
		if f != nil {
			return f
		}
		switch m {
		case citationID:
			c.CitationID, f = d.label(l, "citation_id")
		case citationSourceID:
			c.SourceID, f = d.label(l, "source_id")
		case citationVersion:
			c.Version, f = d.label(l, "version")
		case citationSelector:
			sel := l
			sel.sel = true
			f = d.selector(sel, &c.Selector)
		case citationQuote:
			c.Quote, _, f = d.str(l, "quote", 1, LimitQuoteBytes, d.lim.QuoteBytes)
		case citationClaimedStart:
			c.ClaimedStart, f = d.integer(l, "claimed_start")
			c.HasClaimedStart = true
		default:
			f = d.unknown(l)
		}
		if f != nil {
			return f
		}
	}
	seen, f := d.close()
	if f != nil {
		return f
	}
	if m := firstIndex((1<<citationID | 1<<citationSourceID | 1<<citationVersion | 1<<citationSelector) &^ seen); m >= 0 {
		return d.requiredMissing(l, citationMembers.names[m])
	}
	d.citationRules(l, c, seen&(1<<citationQuote) != 0)
	return nil
}

// citationRules checks spec §1 step 4 for one citation: its selector type
// decides whether quote and claimed_start belong, and its id must be new.
func (d *decoder) citationRules(l loc, c *Citation, quoteSeen bool) {
	switch {
	case c.Selector.Type == PositionSelector && !quoteSeen:
		path := l.path()
		d.noteRule(invalid(path, path[1:]+": a TextPositionSelector citation needs a 'quote' (what T[start:end] reads)"))
	case c.Selector.Type == QuoteSelector && quoteSeen:
		path := l.path()
		d.noteRule(invalid(path+"/quote", path[1:]+"/quote: a TextQuoteSelector citation takes no 'quote' (its selector's 'exact' is the quote)"))
	case c.Selector.Type == PositionSelector && c.HasClaimedStart:
		path := l.path()
		d.noteRule(invalid(path+"/claimed_start", path[1:]+"/claimed_start: a TextPositionSelector citation takes no 'claimed_start'"))
	}
	if l.item == 0 {
		// As many as a body of citations of some 400 bytes holds (more
		// grow the table): no growing for the usual body.
		d.citeIDs.sized(d.room(d.lim.Citations, 4*minCitationBytes))
	}
	if j, ok := d.citeIDs.add(c.CitationID, hashString(c.CitationID), l.item); !ok {
		path := l.path()
		d.noteRule(invalid(path+"/citation_id", path[1:]+"/citation_id: another citation (citations/"+strconv.Itoa(j)+") has the same citation_id "+Echo(c.CitationID).Quoted()))
	}
}

// selector reads a TextPositionSelector or a TextQuoteSelector. Members are
// type-checked as they come (each name has one type in both branches of the
// schema's anyOf); which branch applies is known only at the end, since
// "type" may come last.
func (d *decoder) selector(l loc, s *Selector) *fault {
	var typ string // the type as written, decoded; not kept
	var contextAt [2]int64
	if f := d.open(l, selectorMembers); f != nil {
		return f
	}
	for d.more() {
		m, f := d.member()
		if f != nil {
			return f
		}
		switch m {
		case selectorType:
			var raw []byte
			var escaped bool
			var n int
			raw, escaped, n, _, f = d.rawString(l, "type", 0)
			typ = selectorTypeName(raw, escaped, n)
		case selectorStart:
			s.Start, f = d.integer(l, "start")
		case selectorEnd:
			s.End, f = d.integer(l, "end")
		case selectorExact:
			s.Exact, _, f = d.str(l, "exact", 1, LimitQuoteBytes, d.lim.QuoteBytes)
		case selectorPrefix:
			s.Prefix, contextAt[0], f = d.str(l, "prefix", 0, "", -1) // judged once the type is known
		case selectorSuffix:
			s.Suffix, contextAt[1], f = d.str(l, "suffix", 0, "", -1)
		default:
			f = d.unknown(l)
		}
		if f != nil {
			return f
		}
	}
	seen, f := d.close()
	if f != nil {
		return f
	}
	switch typ {
	case "TextPositionSelector":
		s.Type = PositionSelector
		if m := firstIndex(seen & (1<<selectorExact | 1<<selectorPrefix | 1<<selectorSuffix)); m >= 0 {
			name := selectorMembers.names[m]
			return d.fail(l.path()+"/"+name, l.path()[1:]+"/"+name+": a TextPositionSelector takes no "+strconv.Quote(name)+" (that is a TextQuoteSelector member)")
		}
		if m := firstIndex((1<<selectorStart | 1<<selectorEnd) &^ seen); m >= 0 {
			return d.fail(l.path(), l.path()[1:]+": a TextPositionSelector needs "+strconv.Quote(selectorMembers.names[m]))
		}
	case "TextQuoteSelector":
		s.Type = QuoteSelector
		if m := firstIndex(seen & (1<<selectorStart | 1<<selectorEnd)); m >= 0 {
			name := selectorMembers.names[m]
			return d.fail(l.path()+"/"+name, l.path()[1:]+"/"+name+": a TextQuoteSelector takes no "+strconv.Quote(name)+" (that is a TextPositionSelector member)")
		}
		if seen&(1<<selectorExact) == 0 {
			return d.fail(l.path(), l.path()[1:]+": a TextQuoteSelector needs \"exact\"")
		}
		d.checkBytes(contextAt[0], l, "prefix", s.Prefix, LimitContextBytes, d.lim.ContextBytes)
		d.checkBytes(contextAt[1], l, "suffix", s.Suffix, LimitContextBytes, d.lim.ContextBytes)
	default:
		if seen&(1<<selectorType) == 0 {
			return d.fail(l.path(), l.path()[1:]+": required member \"type\" is missing (TextPositionSelector or TextQuoteSelector)")
		}
		return d.fail(l.path()+"/type", l.path()[1:]+"/type: "+Echo(typ).Quoted()+" is neither \"TextPositionSelector\" nor \"TextQuoteSelector\"")
	}
	return nil
}

// selectorTypeName is a selector's type as written, decoded: one of the
// two type names without allocating, anything else as a new string.
func selectorTypeName(raw []byte, escaped bool, n int) string {
	switch {
	case escaped:
		return string(raw)
	case string(raw) == "TextPositionSelector":
		return "TextPositionSelector"
	case string(raw) == "TextQuoteSelector":
		return "TextQuoteSelector"
	}
	return string(raw)
}

// scanBudget enforces max_scan_units (SPEC §1 step 6): every quote citation
// that names a supplied source scans that source's text once, counted in
// UTF-16 code units. index maps each source's (source_id, version) to its
// position in req.Sources (the decoder has it from the rule that pairs are
// unique); nil builds it. ascii, when not nil, marks the sources whose
// text is known to be ASCII (the scanner saw no byte above it and no
// \uXXXX), measured without reading them. Linear in the other texts, each
// measured once.
func scanBudget(req *Request, index *idSet[[2]string], ascii []bool, maxUnits int) *Error {
	if index == nil {
		index = &idSet[[2]string]{}
		for i, s := range req.Sources {
			index.add([2]string{s.SourceID, s.Version}, hashPair(s.SourceID, s.Version), i)
		}
	}
	scans := make([]int, len(req.Sources)) // quote citations per source
	for _, c := range req.Citations {
		if c.Selector.Type == QuoteSelector {
			if i, ok := index.find([2]string{c.SourceID, c.Version}, hashPair(c.SourceID, c.Version)); ok { // else no such source, nothing scanned
				scans[i]++
			}
		}
	}
	total := 0
	for i, k := range scans {
		switch {
		case k == 0:
		case ascii != nil && ascii[i]:
			total += k * len(req.Sources[i].Text)
		default:
			total += k * utext.UTF16Len(req.Sources[i].Text)
		}
	}
	if total > maxUnits {
		return limitError("/citations", LimitScanUnits, int64(maxUnits), int64(total), "UTF-16 code units")
	}
	return nil
}

// Integer judges a JSON number literal (already known to be valid JSON) as
// Decode judges an integer member: by its exact decimal value, so 4.0, 4e0
// and 40e-1 are 4 and -0 is 0, while 4.5 and 1e-400 are not integers. It
// returns the value and "" for an integer in [0, MaxSafeInteger], else the
// words that follow the literal in a message saying why not ("is not an
// integer", "is outside ±(2^53−1)", "is negative"). The readers around the
// engine (quotes, annotations, tool arguments) use it so that every
// integer is read by one rule.
//
// Cost: linear in len(lit), whatever its exponent.
func Integer(lit []byte) (int, string) {
	n, class := parseInteger(lit)
	switch class {
	case notInteger:
		return 0, "is not an integer"
	case outOfRange:
		return 0, "is outside ±(2^53−1)"
	case negative:
		return 0, "is negative"
	}
	return n, ""
}

// integerClass is how parseInteger judged a number literal.
type integerClass uint8

const (
	isInteger integerClass = iota
	notInteger
	outOfRange // an integer beyond ±(2^53−1): not I-JSON
	negative   // an integer below 0: breaks minimum 0
)

// parseInteger judges a JSON number literal (already known to be valid
// JSON) by its exact decimal value, never its nearest binary64. Linear in
// the literal; exponents of any size are handled without overflow.
func parseInteger(lit []byte) (int, integerClass) {
	if len(lit) <= 15 { // the common case: plain digits, below 10^15 < 2^53
		v := 0
		for _, c := range lit {
			if c < '0' || c > '9' {
				goto general
			}
			v = v*10 + int(c-'0')
		}
		return v, isInteger
	}
general:
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
	if v > MaxSafeInteger {
		return 0, outOfRange
	}
	if neg {
		return 0, negative
	}
	return int(v), isInteger
}

// where names a pointer for a message: "body" for the whole document. A
// member name in it may hold control characters (a CR, a LF); they are
// written as \uXXXX so that the message stays one line.
func where(path string) string {
	if path == "" {
		return "body"
	}
	if !strings.ContainsFunc(path, isLineBreaking) {
		return Echo(path[1:]).String()
	}
	var b strings.Builder
	for _, r := range path[1:] {
		if isLineBreaking(r) { // all of them under U+FFFF: four hex digits, as %04X writes them
			h := strings.ToUpper(strconv.FormatInt(int64(r), 16))
			b.WriteString(`\u` + strings.Repeat("0", 4-len(h)) + h)
		} else {
			b.WriteRune(r)
		}
	}
	return Echo(b.String()).String()
}

// isLineBreaking reports whether r could break or garble a one-line message:
// a C0 or C1 control, DEL, or a Unicode line or paragraph separator.
func isLineBreaking(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
