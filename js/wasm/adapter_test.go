package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/annotation"
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/quotes"
	"github.com/citecheck/citecheck/server"
)

// routeAnswer is the HTTP execute route's response body for body.
func routeAnswer(t testing.TB, h http.Handler, body []byte) []byte {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/v1/tools/citation-batch-check/versions/1.0.0/execute", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Body.Bytes()
}

func TestAnswerExecuteIsTheRoutes(t *testing.T) {
	h := server.New(server.DefaultConfig())
	for _, c := range testkit.Conformance(t) {
		if got, want := answer(modeExecute, c.Body), routeAnswer(t, h, c.Body); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", c.Name, got, want)
		}
	}
}

func TestAnswerOverLimitIsTheCLIsRefusal(t *testing.T) {
	h := server.New(server.DefaultConfig())
	_, e := citecheck.ReadBody(bytes.NewReader(make([]byte, 3<<20)))
	want := citecheck.AppendEnvelope(nil, nil, e)
	for _, n := range []int{citecheck.MaxInputBytes + 1, citecheck.MaxInputBytes + 4, 3 << 20} {
		body := bytes.Repeat([]byte(" "), n)
		for _, mode := range []int{modeExecute, modeAll, modeExplain} {
			if got := answer(mode, body); !bytes.Equal(got, want) {
				t.Errorf("%d bytes, mode %d: %s, want %s", n, mode, got, want)
			}
		}
		if got := routeAnswer(t, h, body); !bytes.Equal(got, want) {
			t.Errorf("%d bytes: the route answers %s, want %s", n, got, want)
		}
	}
	// At the limit the body is read, and refused for what it is.
	atLimit := bytes.Repeat([]byte(" "), citecheck.MaxInputBytes)
	if got := answer(modeExecute, atLimit); bytes.Contains(got, []byte(citecheck.LimitInputBytes)) {
		t.Errorf("a body of max_input_bytes is refused for its size: %s", got)
	}
}

func TestAnswerAllAndExplainAgreeWithExecute(t *testing.T) {
	for _, c := range testkit.Conformance(t) {
		exec := answer(modeExecute, c.Body)
		var ex struct {
			Result *struct{ Valid bool } `json:"result"`
			Error  json.RawMessage       `json:"error"`
		}
		if err := json.Unmarshal(exec, &ex); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, mode := range []int{modeAll, modeExplain} {
			got := answer(mode, c.Body)
			var a struct {
				All *struct {
					Valid bool `json:"valid"`
				} `json:"all"`
				Error json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(got, &a); err != nil {
				t.Fatalf("%s mode %d: %v", c.Name, mode, err)
			}
			switch {
			case ex.Error != nil && !bytes.Equal(got, exec):
				t.Errorf("%s mode %d: refused as %s, want %s", c.Name, mode, got, exec)
			case ex.Result != nil && (a.All == nil || a.All.Valid != ex.Result.Valid):
				t.Errorf("%s mode %d: %s disagrees with %s", c.Name, mode, got, exec)
			}
		}
	}
}

func TestAnswerUnknownModeIsAnInternalError(t *testing.T) {
	got := answer(7, []byte(`{}`))
	want := `{"error":{"code":"` + citecheck.CodeInternal + `","message":"citecheck wasm: unknown mode","path":""}}`
	if string(got) != want {
		t.Errorf("unknown mode: %s, want %s", got, want)
	}
}

func TestLookupIsTheCLIsToolCheck(t *testing.T) {
	if got := lookup(citecheck.ToolID, citecheck.ToolVersion); got != nil {
		t.Errorf("the engine's own tool: %s", got)
	}
	for _, tv := range [][2]string{{"x", "1.0.0"}, {citecheck.ToolID, "9.9.9"}, {"", ""}} {
		got := lookup(tv[0], tv[1])
		want := citecheck.AppendEnvelope(nil, nil, citecheck.LookupTool(tv[0], tv[1]))
		if got == nil || !bytes.Equal(got, want) {
			t.Errorf("%q: %s, want %s", tv, got, want)
		}
	}
}

func TestErrorEnvelopeIsTheEngines(t *testing.T) {
	got := errorEnvelope(citecheck.CodeUsage, `cannot read --input: open "x": no such file`)
	want := `{"error":{"code":"usage","message":"cannot read --input: open \"x\": no such file","path":""}}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// runAnnotations is annotations over an export held whole: its lines
// gathered, and its message.
func runAnnotations(export []byte, sources []annotation.Source) (lines []byte, msg string) {
	lines, msg, _ = runAnnotationsNotices(export, sources)
	return lines, msg
}

// runAnnotationsNotices is runAnnotations with the notices.
func runAnnotationsNotices(export []byte, sources []annotation.Source) (lines []byte, msg string, notices []byte) {
	msg, notices = annotations(bytes.NewReader(export), sources, func(b []byte) { lines = append(lines, b...) })
	return lines, msg, notices
}

// The notices are the CLI's summary beside its counts, as JSON: one page
// of a collection, targets that name no source, sources not supplied.
func TestAnnotationsNoticesSayWhatTheSummarySays(t *testing.T) {
	export := `{"total":9,"rows":[{"id":"a","target":{"source":"urn:x","selector":{"type":"TextQuoteSelector","exact":"q"}}},{"id":"b","target":{"selector":{"type":"TextQuoteSelector","exact":"q"}}}],"next":{"id":"p\u001b2"}}`
	_, msg, notices := runAnnotationsNotices([]byte(export), []annotation.Source{{IRI: "s", Text: "q"}})
	want := `[{"kind":"one_page","message":"this is one page of a collection: 9 annotations in all, 2 here; its next page is at \"p\\x1b2\", whose annotations were not checked","next":"p\u001b2","total":9,"here":2},` +
		`{"kind":"targets_name_no_source","message":"1 targets name no source: sources[\"\"] gives their text","targets":1},` +
		`{"kind":"sources_not_supplied","message":"sources not supplied: \"urn:x\" (1 targets)","sources":[{"iri":"urn:x","targets":1}]}]`
	if msg != "" || string(notices) != want {
		t.Errorf("message %q, notices\n%s\nwant\n%s", msg, notices, want)
	}
}

// countingReader hands on an export a few bytes at a time and counts
// what it has handed on.
type countingReader struct {
	r    io.Reader
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p[:min(len(p), 512)])
	c.read += n
	return n, err
}

// An export's lines leave the adapter as they are written, in pieces of
// about annotation.LinesChunk bytes, long before the export has all been read: the
// module holds neither the export nor its lines whole.
func TestAnnotationsStreamTheExportAndTheLines(t *testing.T) {
	var b bytes.Buffer
	const items = 8 * annotation.StreamBatch
	for i := range items {
		fmt.Fprintf(&b, `{"id":"a%d","target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"fox"}}}`+"\n", i)
	}
	export := b.Bytes()
	r := &countingReader{r: bytes.NewReader(export)}
	var all []byte
	var readAtFirst, pieces, longest int
	msg, _ := annotations(r, []annotation.Source{{IRI: "s", Text: "the quick brown fox"}}, func(p []byte) {
		if pieces == 0 {
			readAtFirst = r.read
		}
		pieces++
		longest = max(longest, len(p))
		all = append(all, p...)
	})
	if msg != "" {
		t.Fatalf("message %q", msg)
	}
	if n := bytes.Count(all, []byte("\n")); n != items {
		t.Fatalf("%d lines, want %d", n, items)
	}
	if readAtFirst >= len(export)/2 {
		t.Errorf("the first lines were handed on after %d of the export's %d bytes", readAtFirst, len(export))
	}
	if pieces < 2 || longest > annotation.LinesChunk+1024 {
		t.Errorf("%d pieces of lines, the longest %d bytes (annotation.LinesChunk %d)", pieces, longest, annotation.LinesChunk)
	}
}

// The repository's real W3C export, with no source supplied: every item
// still gets its line, in input order.
func TestAnnotationsLinesAreOnePerItem(t *testing.T) {
	export, err := os.ReadFile("../../annotation/testdata/w3c-collection1.json")
	if err != nil {
		t.Fatal(err)
	}
	lines, msg := runAnnotations(export, nil)
	if msg != "" {
		t.Fatalf("message %q", msg)
	}
	n := 0
	for l := range strings.Lines(string(lines)) {
		var v struct {
			Index   *int   `json:"index"`
			Outcome string `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.Index == nil || *v.Index != n {
			t.Errorf("line %d: %q (%v)", n, l, err)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no line")
	}
}

// A truncated export writes every item read before the break, then says
// where it broke (spec §5.9), as the command does.
func TestAnnotationsNotJSONWritesWhatItReadThenSaysWhere(t *testing.T) {
	lines, msg := runAnnotations([]byte(`{"id":"a","target":"https://e.org/"} {`), nil)
	if !strings.HasPrefix(msg, "reading the annotations after 1 items: input is not JSON at byte 38") {
		t.Errorf("message %q", msg)
	}
	if !strings.HasPrefix(string(lines), `{"index":0,`) || strings.Count(string(lines), "\n") != 1 {
		t.Errorf("the item read before the break was not written alone: %s", lines)
	}
}

func TestAnnotationsDuplicateSourcesAreRefused(t *testing.T) {
	src := []annotation.Source{{IRI: "https://e.org/", Text: "a"}, {IRI: "https://e.org/", Text: "b"}}
	if lines, msg := runAnnotations([]byte(`[]`), src); msg == "" || lines != nil {
		t.Errorf("duplicate IRIs: lines %q, message %q", lines, msg)
	}
}

// runQuotes is quoteLines' lines, gathered, and its answer parsed.
func runQuotes(t testing.TB, input, request []byte, withRequest bool, sources []quotes.RawSource, explain bool) (lines []byte, pieces int, status int, code, message string) {
	ans := quoteLines(input, request, withRequest, sources, explain, func(b []byte) {
		pieces++
		lines = append(lines, b...)
	})
	var v struct {
		Status  *int   `json:"status"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(ans, &v); err != nil || v.Status == nil {
		t.Fatalf("answer %s: %v", ans, err)
	}
	return lines, pieces, *v.Status, v.Code, v.Message
}

// The statuses are the command's exit statuses: 0 when every quotation
// is verbatim (or there is none), 1 when one is not, 2 with the error for
// input the command refuses; the lines come a batch at a time.
func TestQuoteLinesStatusesAreTheCommands(t *testing.T) {
	src := func() []quotes.RawSource { return []quotes.RawSource{{ID: "1", Text: []byte("The quick brown fox.")}} }
	many := bytes.Repeat([]byte("“quick brown” [1]\n"), 2*quotes.BatchQuotations+1)
	for _, c := range []struct {
		name           string
		input          string
		request        bool
		status, pieces int
		code, message  string
	}{
		{name: "verbatim", input: `“quick brown” [1]`, status: 0, pieces: 1},
		{name: "one character off", input: `“quick browne” [1]`, status: 1, pieces: 1},
		{name: "none", input: `no quotation`, status: 0},
		{name: "batches", input: string(many), status: 0, pieces: 3},
		{name: "not JSON", input: `{"citations": [}`, status: 2, code: citecheck.CodeInvalidInput, message: "text: not JSON: "},
		{name: "request for a report", input: `“quick brown” [1]`, request: true, status: 2, code: citecheck.CodeInvalidInput,
			message: "request is the request an Anthropic response answered; the text is a report"},
	} {
		lines, pieces, status, code, msg := runQuotes(t, []byte(c.input), nil, c.request, src(), false)
		if status != c.status || pieces != c.pieces || code != c.code || !strings.HasPrefix(msg, c.message) || (c.message == "") != (msg == "") {
			t.Errorf("%s: status %d, %d pieces, %q %q; want %d, %d, %q %q…", c.name, status, pieces, code, msg, c.status, c.pieces, c.code, c.message)
		}
		if status == 2 && len(lines) != 0 {
			t.Errorf("%s: lines %q before a refusal", c.name, lines)
		}
	}
	_, _, status, code, msg := runQuotes(t, []byte(`“quick” [1]`), nil, false, []quotes.RawSource{{ID: "1", Text: []byte("a\xedb")}}, false)
	if status != 2 || code != citecheck.CodeInvalidInput || msg != `source "1": not UTF-8: invalid byte 0xED at byte offset 1` {
		t.Errorf("a source not UTF-8: %d %q %q", status, code, msg)
	}
}

// FuzzAdapter: whatever the bytes, every mode answers one envelope and
// never panics; the execute answer is the route's, refusals are alike in
// every mode, an annotation export of the same bytes is checked or
// refused with a message, and so is a quotes input.
func FuzzAdapter(f *testing.F) {
	for _, c := range testkit.Conformance(f)[:40] {
		f.Add(c.Body)
	}
	f.Add([]byte(`[{"id":"a","target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"x"}}}]`))
	h := server.New(server.DefaultConfig())
	f.Fuzz(func(t *testing.T, body []byte) {
		exec := answer(modeExecute, body)
		if want := routeAnswer(t, h, body); !bytes.Equal(exec, want) {
			t.Fatalf("execute %s, route %s", exec, want)
		}
		refused := bytes.HasPrefix(exec, []byte(`{"error":`))
		for _, mode := range []int{modeAll, modeExplain} {
			got := answer(mode, body)
			if !json.Valid(got) {
				t.Fatalf("mode %d: not JSON: %s", mode, got)
			}
			if refused != bytes.HasPrefix(got, []byte(`{"error":`)) || refused && !bytes.Equal(got, exec) {
				t.Fatalf("mode %d: %s, execute %s", mode, got, exec)
			}
		}
		lines, msg, notices := runAnnotationsNotices(body, []annotation.Source{{IRI: "s", Text: string(bytes.ToValidUTF8(body, nil))}})
		if !json.Valid(notices) {
			t.Fatalf("annotations: notices not JSON: %s", notices)
		}
		for l := range bytes.Lines(lines) {
			if !json.Valid(l) {
				t.Fatalf("annotations: not a JSON line: %q", l)
			}
		}
		if msg != "" && !strings.HasPrefix(msg, "reading the annotations after ") {
			t.Fatalf("annotations: message %q", msg)
		}
		qlines, _, status, _, qmsg := runQuotes(t, body, body, false, []quotes.RawSource{{ID: "1", Text: []byte("the quick brown fox")}}, true)
		for l := range bytes.Lines(qlines) {
			if !json.Valid(l) {
				t.Fatalf("quotes: not a JSON line: %q", l)
			}
		}
		if (status == 2) != (qmsg != "") || status == 2 && len(qlines) != 0 {
			t.Fatalf("quotes: status %d, message %q after %d bytes of lines", status, qmsg, len(qlines))
		}
	})
}
