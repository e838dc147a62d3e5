package citecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The contract's schemas are the independent judge of the engine's input and
// output: a general JSON Schema validator, not our decoder, says what they
// accept. Numbers are loaded as json.Number (jsonschema.UnmarshalJSON) so that
// "integer" is judged on the exact literal, as spec §1 step 3 requires.

var (
	outputSchemaOnce = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileContractSchema("output_schema", false) })
	inputSchemaOnce  = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileContractSchema("input_schema", true) })
)

// compileContractSchema compiles one schema of ContractJSON. dropMaxItems
// removes every maxItems: spec §1 treats them as limits (limit_exceeded, step
// 5), not as schema failures (invalid_input, step 3).
func compileContractSchema(name string, dropMaxItems bool) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ContractJSON()))
	if err != nil {
		return nil, err
	}
	sch, ok := doc.(map[string]any)[name]
	if !ok {
		return nil, fmt.Errorf("contract has no %s", name)
	}
	if dropMaxItems {
		deleteMember(sch, "maxItems")
	}
	c := jsonschema.NewCompiler()
	url := "https://citecheck.invalid/" + name + ".json"
	if err := c.AddResource(url, sch); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// deleteMember removes every member called name from the objects in v.
func deleteMember(v any, name string) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, name)
		for _, w := range v {
			deleteMember(w, name)
		}
	case []any:
		for _, w := range v {
			deleteMember(w, name)
		}
	}
}

func outputSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	s, err := outputSchemaOnce()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func inputSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	s, err := inputSchemaOnce()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// schemaErr validates JSON text doc against sch; nil means valid.
func schemaErr(sch *jsonschema.Schema, doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// checkOutput fails t unless out is valid under the contract's output_schema.
func checkOutput(t testing.TB, out []byte) {
	t.Helper()
	if err := schemaErr(outputSchema(t), out); err != nil {
		t.Fatalf("result breaks output_schema: %v\n%s", err, out)
	}
}

func TestConformanceOutputsValidateAgainstOutputSchema(t *testing.T) {
	t.Parallel()
	n := 0
	for _, c := range testkit.Conformance(t) {
		res, _ := Run(c.Body)
		if res != nil {
			checkOutput(t, res.AppendJSON(nil))
			n++
		}
	}
	if n == 0 {
		t.Fatal("no conformance case gave a result")
	}
}

// TestContractExampleOutputsValidateAgainstOutputSchema keeps the judge
// honest: the contract's own example outputs must pass it.
func TestContractExampleOutputsValidateAgainstOutputSchema(t *testing.T) {
	t.Parallel()
	for i, ex := range contractExamples(t) {
		if err := schemaErr(outputSchema(t), ex.Output); err != nil {
			t.Errorf("example %d: %v", i, err)
		}
		if err := schemaErr(inputSchema(t), ex.Input); err != nil {
			t.Errorf("example %d input: %v", i, err)
		}
	}
}

type contractExample struct {
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
}

func contractExamples(t testing.TB) []contractExample {
	var c struct {
		Examples []contractExample `json:"examples"`
	}
	if err := json.Unmarshal(ContractJSON(), &c); err != nil {
		t.Fatal(err)
	}
	return c.Examples
}

// TestRandomResultsValidateAgainstOutputSchema: whatever a valid request
// holds, the result is one the output schema allows, the same bytes on every
// run, and what the brute-force reference of spec §2 (fuzz_test.go) says.
func TestRandomResultsValidateAgainstOutputSchema(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	n := 5000
	if testing.Short() {
		n = 500
	}
	reasons := map[string]int{}
	for i := range n {
		req := genRequest(r)
		body, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		res, cerr := Run(body)
		if cerr != nil {
			t.Fatalf("case %d: valid request refused: %s (path %q)\n%s", i, AsError(cerr).Message, AsError(cerr).Path, body)
		}
		out := res.AppendJSON(nil)
		checkOutput(t, out)
		again, _ := Run(body)
		if !bytes.Equal(out, again.AppendJSON(nil)) {
			t.Fatalf("case %d: two runs differ\n%s\n%s", i, out, again.AppendJSON(nil))
		}
		if want := refResult(req); !bytes.Equal(out, want) {
			t.Fatalf("case %d: result differs from the reference\nbody %s\n got %s\nwant %s", i, body, out, want)
		}
		reasons[res.Reason.String()]++
	}
	// The generator must reach every outcome, or the test proves little.
	for _, reason := range append(Reasons(), ReasonNone) {
		if reasons[reason.String()] == 0 {
			t.Errorf("no random request ended in %q", reason)
		}
	}
	t.Logf("outcomes: %v", reasons)
}

// alphabet is small so that random texts repeat (ambiguous anchors, prefix
// and suffix clashes) and mixes 1- to 4-byte UTF-8, combining marks, astral
// code points (2 UTF-16 units), a noncharacter, line ends, and the two
// characters JSON must escape.
var alphabet = []rune("aaannnb é\u0301中😀\U0001F3FD\r\n\"\\\uFFFE\u2028")

func genRunes(r *rand.Rand, min, max int) []rune {
	return (&testkit.Corpus{Rand: r}).Runes(alphabet, min+r.IntN(max-min+1))
}

func ptr[T any](v T) *T { return &v }

// genRequest returns a random request that satisfies spec §1 (so it must be
// checked, not refused) and exercises every branch of spec §2.
func genRequest(r *rand.Rand) *testkit.Request {
	req := &testkit.Request{}
	ids, versions := []string{"s1", "s2"}, []string{"v1", "v2", "v3"}
	seen := map[[2]string]bool{}
	for range 1 + r.IntN(3) {
		id, v := ids[r.IntN(len(ids))], versions[r.IntN(len(versions))]
		if seen[[2]string{id, v}] {
			continue
		}
		seen[[2]string{id, v}] = true
		req.Sources = append(req.Sources, testkit.NewSource(id, v, string(genRunes(r, 0, 14))))
	}
	for k := range 1 + r.IntN(4) {
		c := testkit.Citation{CitationID: fmt.Sprint("c", k)}
		src := req.Sources[r.IntN(len(req.Sources))]
		c.SourceID, c.Version = src.SourceID, src.Version
		switch r.IntN(10) {
		case 0:
			c.SourceID = "zz" // unknown_source
		case 1:
			c.Version = "v9" // version_mismatch
		}
		text := []rune(src.Text)
		n := len(text)
		start, end := r.IntN(n+3), r.IntN(n+3)
		if r.IntN(3) > 0 { // mostly in range and ordered, so the quote is compared
			start, end = min(start, end, n), min(max(start, end), n)
		}
		if r.IntN(2) == 0 {
			c.Selector = testkit.Selector{Type: "TextPositionSelector", Start: &start, End: &end}
			q := genRunes(r, 1, 4)
			if start < end && end <= n && r.IntN(3) > 0 {
				q = slices.Clone(text[start:end])
				switch r.IntN(4) {
				case 0: // a wrong code point
					q[r.IntN(len(q))] = alphabet[r.IntN(len(alphabet))]
				case 1: // one code point too many
					q = append(q, alphabet[r.IntN(len(alphabet))])
				case 2: // one too few
					if len(q) > 1 {
						q = q[:len(q)-1]
					}
				}
			}
			c.Quote = ptr(string(q))
		} else {
			exact := genRunes(r, 1, 3)
			if start < end && end <= n && r.IntN(4) > 0 {
				exact = text[start:end]
			}
			c.Selector = testkit.Selector{Type: "TextQuoteSelector", Exact: ptr(string(exact))}
			c.Selector.Prefix = genContext(r, text[:min(start, n)], true)
			c.Selector.Suffix = genContext(r, text[min(end, n):], false)
			switch r.IntN(5) {
			case 0:
				c.ClaimedStart = ptr(start)
			case 1:
				c.ClaimedStart = ptr(r.IntN(n + 3))
			case 2:
				c.ClaimedStart = ptr(MaxSafeInteger)
			}
		}
		req.Citations = append(req.Citations, c)
	}
	return req
}

// genContext returns an absent, empty, real (taken from around, next to the
// span) or random prefix or suffix.
func genContext(r *rand.Rand, around []rune, before bool) *string {
	switch r.IntN(6) {
	case 0, 1:
		return nil
	case 2:
		return ptr("")
	case 3:
		return ptr(string(genRunes(r, 1, 2)))
	}
	k := min(len(around), 1+r.IntN(3))
	if before {
		return ptr(string(around[len(around)-k:]))
	}
	return ptr(string(around[:k]))
}

// jv is a JSON value kept as written: members in order, numbers as their
// literal, so a mutation can produce exactly the text it means to.
type jv struct {
	kind byte // '{', '[', '"', '0' (number), 't', 'f', 'n'
	keys []string
	vals []*jv  // object member values, or array items
	s    string // a string's value, or a number's literal
}

func (v *jv) appendJSON(b []byte) []byte {
	switch v.kind {
	case '{', '[':
		open, close := byte('{'), byte('}')
		if v.kind == '[' {
			open, close = '[', ']'
		}
		b = append(b, open)
		for i, w := range v.vals {
			if i > 0 {
				b = append(b, ',')
			}
			if v.kind == '{' {
				b = testkit.AppendJSONString(b, v.keys[i])
				b = append(b, ':')
			}
			b = w.appendJSON(b)
		}
		return append(b, close)
	case '"':
		return testkit.AppendJSONString(b, v.s)
	case '0':
		return append(b, v.s...)
	case 't':
		return append(b, "true"...)
	case 'f':
		return append(b, "false"...)
	}
	return append(b, "null"...)
}

func (v *jv) clone() *jv {
	w := *v
	w.keys = slices.Clone(v.keys)
	w.vals = make([]*jv, len(v.vals))
	for i, x := range v.vals {
		w.vals[i] = x.clone()
	}
	return &w
}

func (v *jv) get(name string) *jv {
	if v == nil || v.kind != '{' {
		return nil
	}
	if i := slices.Index(v.keys, name); i >= 0 {
		return v.vals[i]
	}
	return nil
}

func (v *jv) set(name string, w *jv) {
	if i := slices.Index(v.keys, name); i >= 0 {
		v.vals[i] = w
		return
	}
	v.keys, v.vals = append(v.keys, name), append(v.vals, w)
}

func (v *jv) del(i int) {
	if v.kind == '{' {
		v.keys = slices.Delete(v.keys, i, i+1)
	}
	v.vals = slices.Delete(v.vals, i, i+1)
}

func jstr(s string) *jv { return &jv{kind: '"', s: s} }
func jnum(s string) *jv { return &jv{kind: '0', s: s} }

// jobj builds an object from name/value pairs, skipping nil values, in a
// random order: "type" may come last, quote before selector, and so on.
func jobj(r *rand.Rand, kv ...any) *jv {
	o := &jv{kind: '{'}
	for i := 0; i < len(kv); i += 2 {
		if w := kv[i+1].(*jv); w != nil {
			o.keys, o.vals = append(o.keys, kv[i].(string)), append(o.vals, w)
		}
	}
	r.Shuffle(len(o.keys), func(i, j int) {
		o.keys[i], o.keys[j] = o.keys[j], o.keys[i]
		o.vals[i], o.vals[j] = o.vals[j], o.vals[i]
	})
	return o
}

func jstrp(s *string) *jv {
	if s == nil {
		return nil
	}
	return jstr(*s)
}

func jintp(n *int) *jv {
	if n == nil {
		return nil
	}
	return jnum(fmt.Sprint(*n))
}

func toJV(r *rand.Rand, req *testkit.Request) *jv {
	sources := &jv{kind: '['}
	for _, s := range req.Sources {
		sources.vals = append(sources.vals, jobj(r, "source_id", jstr(s.SourceID), "version", jstr(s.Version), "text", jstr(s.Text)))
	}
	citations := &jv{kind: '['}
	for _, c := range req.Citations {
		sel := jobj(r, "type", jstr(c.Selector.Type), "start", jintp(c.Selector.Start), "end", jintp(c.Selector.End),
			"exact", jstrp(c.Selector.Exact), "prefix", jstrp(c.Selector.Prefix), "suffix", jstrp(c.Selector.Suffix))
		citations.vals = append(citations.vals, jobj(r, "citation_id", jstr(c.CitationID), "source_id", jstr(c.SourceID),
			"version", jstr(c.Version), "selector", sel, "quote", jstrp(c.Quote), "claimed_start", jintp(c.ClaimedStart)))
	}
	return jobj(r, "sources", sources, "citations", citations)
}

// slot is a place holding a value: parent's vals[i], or the root.
type slot struct {
	parent *jv
	i      int
	name   string // the member name, "" for array items and the root
}

func slots(root *jv) []slot {
	out := []slot{{}}
	var walk func(v *jv)
	walk = func(v *jv) {
		for i, w := range v.vals {
			s := slot{parent: v, i: i}
			if v.kind == '{' {
				s.name = v.keys[i]
			}
			out = append(out, s)
			walk(w)
		}
	}
	walk(root)
	return out
}

// integerLiterals are number forms for start, end and claimed_start: the
// integer 4 or 0 written every way JSON allows, non-integers whose nearest
// binary64 is an integer, negatives, and integers at and past 2^53−1.
var integerLiterals = []string{
	"4", "4.0", "4e0", "40e-1", "0.4e1", "4E+0", "400e-2", "-0", "-0.0", "0e0", "0.000e10", "-0e-5",
	"4.5", "1e-400", "4.0000000000000001", "4.01", "0.4", "1.5e-1",
	"-1", "-4e0", "-0.5", "-9007199254740992",
	"1E1", "1e+1", "12.5e1", "9007199254740991", "9007199254740991.0", "90071992547409910e-1",
	"9007199254740992", "1e16", "1e400", "100000000000000000000e-20",
}

// otherNames are member names to add where they do not belong: the other
// selector type's members, members of other objects, near misses of real
// names, and names that need escaping in a JSON Pointer.
var otherNames = []string{
	"type", "start", "end", "exact", "prefix", "suffix", "quote", "claimed_start",
	"text", "source_id", "version", "citation_id", "selector", "sources", "citations",
	"Type", "exect", "", "a/b", "~0", "é",
}

// valueFor returns a value of the type that name has in the schema (mostly),
// or of any type.
func valueFor(r *rand.Rand, name string) *jv {
	if r.IntN(4) > 0 {
		switch name {
		case "start", "end", "claimed_start":
			return jnum(fmt.Sprint(r.IntN(5)))
		case "type":
			return jstr([]string{"TextPositionSelector", "TextQuoteSelector"}[r.IntN(2)])
		case "sources", "citations", "selector":
		default:
			return jstr(string(genRunes(r, 1, 3)))
		}
	}
	return randomValue(r)
}

func randomValue(r *rand.Rand) *jv {
	switch r.IntN(9) {
	case 0:
		return jstr("")
	case 1:
		return jstr("x")
	case 2:
		return jnum(integerLiterals[r.IntN(len(integerLiterals))])
	case 3:
		return &jv{kind: 't'}
	case 4:
		return &jv{kind: 'f'}
	case 5:
		return &jv{kind: 'n'}
	case 6:
		return &jv{kind: '{'}
	case 7:
		return &jv{kind: '['}
	}
	return &jv{kind: '[', vals: []*jv{{kind: '{'}}}
}

// mutate applies one random change of the kinds spec §1 steps 3 and 4 name.
func mutate(r *rand.Rand, root *jv) *jv {
	all := slots(root)
	pick := func(keep func(s slot, v *jv) bool) (slot, *jv, bool) {
		var ok []slot
		for _, s := range all {
			if keep(s, s.value(root)) {
				ok = append(ok, s)
			}
		}
		if len(ok) == 0 {
			return slot{}, nil, false
		}
		s := ok[r.IntN(len(ok))]
		return s, s.value(root), true
	}
	replace := func(s slot, w *jv) *jv {
		if s.parent == nil {
			return w
		}
		s.parent.vals[s.i] = w
		return root
	}
	isObj := func(_ slot, v *jv) bool { return v.kind == '{' }
	switch r.IntN(11) {
	case 0: // drop a member (required or optional)
		if _, o, ok := pick(func(s slot, v *jv) bool { return v.kind == '{' && len(v.vals) > 0 }); ok {
			o.del(r.IntN(len(o.vals)))
		}
	case 1, 2: // add a member at any depth
		if _, o, ok := pick(isObj); ok {
			name := otherNames[r.IntN(len(otherNames))]
			if o.get(name) == nil { // a duplicate name would be an I-JSON failure instead
				o.set(name, valueFor(r, name))
			}
		}
	case 3: // change a value's JSON type
		s, _, _ := pick(func(slot, *jv) bool { return true })
		return replace(s, randomValue(r))
	case 4: // an empty string
		if s, _, ok := pick(func(_ slot, v *jv) bool { return v.kind == '"' }); ok {
			return replace(s, jstr(""))
		}
	case 5, 6: // an integer written another way, or a number that is not one
		if s, _, ok := pick(func(_ slot, v *jv) bool { return v.kind == '0' }); ok {
			return replace(s, jnum(integerLiterals[r.IntN(len(integerLiterals))]))
		}
	case 7: // a selector's type: the other one, or a near miss
		if _, o, ok := pick(func(s slot, v *jv) bool { return s.name == "selector" && v.kind == '{' }); ok {
			o.set("type", jstr([]string{"TextPositionSelector", "TextQuoteSelector", "textQuoteSelector", "TextPositionSelector ", "", "RangeSelector"}[r.IntN(6)]))
		}
	case 8: // an empty array
		if s, _, ok := pick(func(s slot, v *jv) bool { return s.name == "sources" || s.name == "citations" }); ok {
			return replace(s, &jv{kind: '['})
		}
	case 9: // a second copy of an array item: a duplicate pair or citation_id
		if _, a, ok := pick(func(s slot, v *jv) bool { return v.kind == '[' && len(v.vals) > 0 }); ok {
			a.vals = append(a.vals, a.vals[r.IntN(len(a.vals))].clone())
		}
	case 10: // more items than a limit allows (a limit, not a schema failure)
		if r.IntN(4) > 0 { // rarely: big arrays are slow to validate
			break
		}
		if sl, a, ok := pick(func(s slot, v *jv) bool {
			return (s.name == "sources" || s.name == "citations") && v.kind == '[' && len(v.vals) > 0
		}); ok {
			item, want := a.vals[0], MaxSources+1
			if sl.name == "citations" {
				want = MaxCitations + 1
			}
			for i := len(a.vals); i < want; i++ {
				w := item.clone()
				for _, name := range []string{"version", "citation_id"} {
					if w.get(name) != nil {
						w.set(name, jstr(fmt.Sprint("x", i)))
					}
				}
				a.vals = append(a.vals, w)
			}
		}
	}
	return root
}

func (s slot) value(root *jv) *jv {
	if s.parent == nil {
		return root
	}
	return s.parent.vals[s.i]
}

// refAccepts is what spec §1 steps 2–4 say of a body written from a jv (so
// well-formed UTF-8 JSON with no duplicate names): schema-valid, integers
// within ±(2^53−1), and the rules across members.
func refAccepts(t testing.TB, body []byte) (ok bool, why string) {
	if err := schemaErr(inputSchema(t), body); err != nil {
		return false, "schema: " + strings.ReplaceAll(err.Error(), "\n", " ")
	}
	req, err := testkit.ReadLiteral(body)
	if err != nil {
		t.Fatalf("schema-valid body does not decode: %v", err)
	}
	limit := new(big.Rat).SetInt64(MaxSafeInteger)
	inRange := func(n *json.Number) bool {
		if n == nil {
			return true
		}
		v, ok := new(big.Rat).SetString(string(*n))
		return ok && v.Cmp(limit) <= 0
	}
	for _, c := range req.Citations {
		if !inRange(c.Selector.Start) || !inRange(c.Selector.End) || !inRange(c.ClaimedStart) {
			return false, "I-JSON: integer beyond 2^53-1"
		}
	}
	pairs := map[[2]string]bool{}
	for _, s := range req.Sources {
		if pairs[[2]string{s.SourceID, s.Version}] {
			return false, "rule: duplicate source pair"
		}
		pairs[[2]string{s.SourceID, s.Version}] = true
	}
	ids := map[string]bool{}
	for _, c := range req.Citations {
		pos := c.Selector.Type == "TextPositionSelector"
		switch {
		case pos && c.Quote == nil:
			return false, "rule: position citation without quote"
		case !pos && c.Quote != nil:
			return false, "rule: quote citation with quote"
		case pos && c.ClaimedStart != nil:
			return false, "rule: position citation with claimed_start"
		case ids[c.CitationID]:
			return false, "rule: duplicate citation_id"
		}
		ids[c.CitationID] = true
	}
	return true, ""
}

// TestDecoderAcceptsExactlyWhatInputSchemaAccepts: for near-valid requests,
// Decode refuses with invalid_input exactly when the input schema (limits
// aside), I-JSON's integer range or a rule across members refuses.
func TestDecoderAcceptsExactlyWhatInputSchemaAccepts(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	n := 10000
	if testing.Short() {
		n = 1000
	}
	var accepted, refused int
	whys := map[string]int{}
	for i := range n {
		root := toJV(r, genRequest(r))
		for range 1 + r.IntN(2) {
			root = mutate(r, root)
		}
		body := root.appendJSON(nil)
		want, why := refAccepts(t, body)
		_, cerr := Decode(body)
		got := cerr == nil || AsError(cerr).Code != CodeInvalidInput
		if got != want {
			msg := "accepted"
			if cerr != nil {
				msg = AsError(cerr).Code + ": " + AsError(cerr).Message
			}
			t.Fatalf("case %d: reference says accept=%v (%s); Decode: %s\n%s", i, want, why, msg, body)
		}
		if want {
			accepted++
			if cerr != nil {
				whys["accepted, then "+AsError(cerr).Limit]++
			}
		} else {
			refused++
			whys[strings.SplitN(why, ":", 2)[0]]++
		}
	}
	// Both sides of the equivalence, and every kind of refusal, must be
	// exercised for the test to mean anything.
	if accepted < n/20 || refused < n/4 || whys["rule"] == 0 || whys["I-JSON"] == 0 {
		t.Errorf("too little coverage: %d accepted, %d refused %v", accepted, refused, whys)
	}
	t.Logf("%d accepted, %d refused %v", accepted, refused, whys)
}
