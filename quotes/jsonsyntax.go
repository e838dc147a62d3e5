package quotes

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/citecheck/citecheck/internal/jsonwords"
	"github.com/go-json-experiment/json/jsontext"
)

// maxNesting is how deep objects and arrays may nest in a JSON input:
// jsontext's own bound, which the engine's request scanner shares.
const maxNesting = jsonwords.MaxNesting

// strict are the options of the validation: RFC 8259 and I-JSON (RFC
// 7493), jsontext's defaults, written out because the readers' contract
// (spec §5.13) depends on them.
var strict = []jsontext.Options{jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false)}

// syntax is a JSON input found not to be JSON: what is wrong, in words a
// person reads without knowing a parser, and where (byte offset from the
// start of the input, and the JSON Pointer of the value it is in).
type syntax struct {
	what string
	at   int
	ptr  string
}

func (e *syntax) String() string {
	s := e.what + " at byte " + strconv.Itoa(e.at)
	if e.ptr != "" {
		s += " (in " + citecheck.Echo(pointerText(e.ptr)).String() + ")"
	}
	return s
}

// checkJSON returns nil when b is one JSON text as RFC 8259 and I-JSON
// define it, else what is wrong. base is added to every offset it
// reports, so that offsets count from the start of the input the caller
// was given (before a byte order mark it dropped). With w, it counts a
// step per byte of each token read, so that w polls its caller at least
// every pollSteps bytes plus one token; once w.err is set it returns nil
// at once, and the caller is to look at w.err.
//
// jsontext finds the fault; jsonwords says it in plain words, from the
// bytes around the fault and the decoder's state there, as the
// annotation reader does.
//
// Cost: linear in len(b); memory the offsets of the open objects and
// arrays (8 bytes each, at most maxNesting) and jsontext's member names
// of the open objects, at most len(b).
func checkJSON(b []byte, base int, w *workCounter) *syntax {
	dec := jsontext.NewDecoder(bytes.NewBuffer(b), strict...)
	var opens []int64
	counted := 0
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			f := jsonwords.Describe(err, jsonwords.Input{Dec: dec, Window: b, Whole: true, Opens: opens, Base: int64(base), Name: echo})
			return &syntax{what: f.Words, at: int(f.At), ptr: f.Ptr}
		}
		if w != nil {
			at := int(dec.InputOffset())
			if w.add(at - counted); w.err != nil {
				return nil
			}
			counted = at
		}
		switch tok.Kind() {
		case '{', '[':
			opens = append(opens, dec.InputOffset()-1)
		case '}', ']':
			opens = opens[:len(opens)-1]
		}
		if dec.StackDepth() == 0 {
			break
		}
	}
	// The decoder reads a stream of values; one JSON text is one value.
	if i := len(b) - len(bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n")); i < len(b) {
		return &syntax{what: "more follows the end of the JSON value: " + jsonwords.Char(b, i), at: base + i}
	}
	return nil
}

// echo repeats a member name in a message as every message repeats
// what the client sent.
func echo(name string) string { return citecheck.Echo(name).String() }

// node is a value of a JSON input that checkJSON has accepted, raw; raw
// is nil for a value that is not there. Its JSON Pointer is not built
// until a message needs it (ptr): a node knows only its parent and its
// name or index in it. w, when set, is polled as the items of arrays are
// read (items), and its children inherit it.
type node struct {
	raw  jsontext.Value
	up   *node  // the object or array it is in; nil for the top
	name string // its member name, in an object
	k    int    // its index, in an array
	r    *walker
}

// walker is what the walks of one input share: the workCounter items
// poll (nil: none), and the decoders of walks that have ended, for the
// next to reuse, so that reading an object costs no decoder of its own.
type walker struct {
	w    *workCounter
	free []*decoder
}

type decoder struct {
	dec jsontext.Decoder
	buf bytes.Buffer
}

// get returns a decoder reading raw, reused when one is free.
func (r *walker) get(raw []byte) *decoder {
	var d *decoder
	if r != nil && len(r.free) > 0 {
		d, r.free = r.free[len(r.free)-1], r.free[:len(r.free)-1]
	} else {
		d = new(decoder)
	}
	d.buf = *bytes.NewBuffer(raw)
	d.dec.Reset(&d.buf, jsontext.AllowDuplicateNames(true))
	return d
}

// put makes d free for the next walk.
func (r *walker) put(d *decoder) {
	if r != nil {
		r.free = append(r.free, d)
	}
}

// ptr is the node's JSON Pointer, as a message shows it (pointerText).
// Cost: linear in its length and depth.
func (n node) ptr() string { return pointerText(n.rawPtr()) }

func (n node) rawPtr() string {
	if n.up == nil {
		return ""
	}
	if n.up.raw[0] == '{' {
		return n.up.rawPtr() + "/" + jsonenc.EscapePointer(n.name)
	}
	return n.up.rawPtr() + "/" + strconv.Itoa(n.k)
}

// pointerText is JSON Pointer p as a message shows it: as it is, or,
// when a member name in it holds a control character (a line end would
// break the message's one line), as a JSON string, escapes and all.
func pointerText(p string) string {
	if strings.IndexFunc(p, unicode.IsControl) < 0 {
		return p
	}
	return string(jsonenc.AppendString(nil, p))
}

// kind is the value's kind as jsonenc.KindName takes it.
func (n node) kind() byte {
	if len(n.raw) == 0 {
		return 0
	}
	switch c := n.raw[0]; c {
	case '{', '[', '"', 'n', 't', 'f':
		return c
	}
	return '0'
}

// text is the value of a string.
func (n node) text() string {
	s, _ := jsontext.AppendUnquote(nil, n.raw)
	return string(s)
}

// walk calls f with each member (k counts from 0, name is its name) or
// item (name "") of n, an object or array, in order, and stops at the
// first error. checkJSON has accepted the input, so the reads cannot
// fail; should one, the walk ends there.
//
// Cost: linear in len(n.raw): jsontext reads the value once more,
// without the duplicate-name check checkJSON has made; one allocation for
// the walk (the parent its children point to), and one for each member
// name.
func (n node) walk(f func(k int, name string, v node) error) error {
	up := &n
	d := n.r.get(n.raw)
	defer n.r.put(d)
	dec := &d.dec
	dec.ReadToken()
	for k := 0; ; k++ {
		if kind := dec.PeekKind(); kind == 0 || kind == '}' || kind == ']' {
			return nil
		}
		name := ""
		if n.raw[0] == '{' {
			t, _ := dec.ReadToken()
			name = t.String()
		}
		v, err := dec.ReadValue()
		if err != nil {
			return nil
		}
		if err := f(k, name, node{raw: v, up: up, name: name, k: k, r: n.r}); err != nil {
			return err
		}
	}
}

// members calls f with each member of object n (none when n is not an
// object), in order, and stops at the first error. Cost: linear in the
// object's bytes.
func (n node) members(f func(name string, v node) error) error {
	if n.kind() != '{' {
		return nil
	}
	return n.walk(func(_ int, name string, v node) error { return f(name, v) })
}

// items calls f with each item of array n (none when n is not an array),
// in order, and stops at the first error, or at the first error of the
// workCounter's
// poll, which it counts a step per byte of each item. Cost: linear in the
// array's bytes.
func (n node) items(f func(k int, v node) error) error {
	if n.kind() != '[' {
		return nil
	}
	return n.walk(func(k int, _ string, v node) error {
		if n.r != nil && n.r.w != nil {
			w := n.r.w
			if w.add(len(v.raw)); w.err != nil {
				return w.err
			}
		}
		return f(k, v)
	})
}
