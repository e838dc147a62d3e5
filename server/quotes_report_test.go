package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/report"
)

// hostileArgs are check_quotes arguments whose report, sources and
// source ids hold markup: a script element, an attribute injection, a
// javascript: link, an event handler; each quotation is in its source,
// so the report shows it, and its passage, as text.
func hostileArgs() map[string]any {
	return map[string]any{
		"text": "He wrote “<script>alert(1)</script>” [evil]. Then “\" onmouseover=\"alert(2)” [evil], " +
			"and “<a href=\"javascript:alert(3)\">link</a>” [evil]. Also “<img src=x onerror=alert(4)>” [<i>\"x\"</i>], " +
			"“<SCRIPT>alert(1)</SCRIPT>” [evil] and “javascript:alert(7)” [evil].\n\n> </textarea><script>alert(8)</script> [nowhere]\n",
		"sources": []quotesSource{
			{"evil", "<script>alert(1)</script> and \" onmouseover=\"alert(2) and <a href=\"javascript:alert(3)\">link</a>."},
			{"<i>\"x\"</i>", "<img src=x onerror=alert(4)> javascript:alert(5)"},
		},
	}
}

// quotesReportCases are arguments whose report the route must answer,
// one of each shape.
func quotesReportCases() []struct {
	name string
	args map[string]any
} {
	doc := func(text string) map[string]any {
		return map[string]any{"type": "document", "source": map[string]any{"type": "text", "media_type": "text/plain", "data": text}}
	}
	return []struct {
		name string
		args map[string]any
	}{
		{"the page's example", map[string]any{"text": pasteExampleText, "sources": []quotesSource{{pasteExampleSourceID, pasteExampleSource}}}},
		{"hostile markup", hostileArgs()},
		{"a structured answer", map[string]any{
			"text":    `{"citations":[{"source_id":"1","quote":"Les hommes naissent"},{"source_id":"1","quote":"les hommes naissent"},{"source_id":"2","quote":"x"}]}`,
			"sources": []quotesSource{{"1", declaration}}}},
		{"an Anthropic response with its request", map[string]any{
			"text":    `{"type":"message","role":"assistant","content":[{"type":"text","text":"It says so.","citations":[{"type":"char_location","cited_text":"Les hommes naissent","document_index":0,"start_char_index":9,"end_char_index":28}]}]}`,
			"request": map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{doc(declaration)}}}}}},
		{"no quotation", map[string]any{"text": "Nothing quoted here.", "sources": []quotesSource{{"1", "x"}}}},
	}
}

// POST /v1/quotes/report answers the HTML report: text/html, one
// element with data-outcome per quotation, in order, whose outcomes are
// the MCP tool's on the same arguments, and the report's own CSP.
func TestQuotesReportOutcomesAreTheMCPTools(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	cs := connectInMemory(t, NewMCPServer())
	for _, c := range quotesReportCases() {
		t.Run(c.name, func(t *testing.T) {
			resp, body := post(t, ts.URL+pathQuotesReport, mustJSON(c.args))
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Fatalf("%d %s: %.400s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q", got)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src "+report.HTMLScriptSource) || !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			text, _, isErr := callTool(t, cs, MCPQuotesToolName, c.args)
			var want quotesAnswer
			if err := json.Unmarshal([]byte(text), &want); err != nil || isErr || want.Quotes == nil {
				t.Fatalf("the MCP tool: %v %s", err, text)
			}
			var wantOutcomes []string
			for _, r := range want.Quotes.Results {
				wantOutcomes = append(wantOutcomes, r.Outcome)
			}
			if got := dataOutcomes(t, body); !slices.Equal(got, wantOutcomes) {
				t.Errorf("data-outcome %v, the MCP tool's outcomes %v", got, wantOutcomes)
			}
		})
	}
}

// dataOutcomes is testkit.DataOutcomes of page, failing t on an error.
func dataOutcomes(t testing.TB, page []byte) []string {
	t.Helper()
	out, err := testkit.DataOutcomes(string(page))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Untrusted text stays text: the hostile report's page has one script
// element (the report's own), no event handler attribute and no
// javascript: URL, and its markup is there as text.
func TestQuotesReportShowsMarkupAsText(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	resp, body := post(t, ts.URL+pathQuotesReport, mustJSON(hostileArgs()))
	if resp.StatusCode != 200 {
		t.Fatalf("%d %.400s", resp.StatusCode, body)
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	scripts := 0
	var text strings.Builder
	for n := range doc.Descendants() {
		switch n.Type {
		case html.TextNode:
			if n.Parent != nil && n.Parent.Data != "script" && n.Parent.Data != "style" {
				text.WriteString(n.Data)
			}
		case html.ElementNode:
			if n.Data == "script" {
				scripts++
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") {
					t.Errorf("<%s> has the attribute %s=%q", n.Data, a.Key, a.Val)
				}
				if v := strings.ToLower(strings.TrimSpace(a.Val)); (a.Key == "href" || a.Key == "src" || a.Key == "action") && strings.HasPrefix(v, "javascript:") {
					t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
				}
			}
			if n.Data == "img" || n.Data == "iframe" || n.Data == "object" || n.Data == "embed" {
				t.Errorf("a <%s> element", n.Data)
			}
		}
	}
	if scripts != 1 {
		t.Errorf("%d script elements, want the report's one", scripts)
	}
	for _, s := range []string{"<script>alert(1)</script>", `" onmouseover="alert(2)`, `<a href="javascript:alert(3)">link</a>`} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("the page's text lacks %q", s)
		}
	}
}

// A refused input is the JSON error envelope with the status of its code:
// the same bytes as the MCP tool's error for the same arguments, and as
// checkQuotesArguments's (with or without explain).
func TestQuotesReportRefusals(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	cs := connectInMemory(t, NewMCPServer())
	many := make([]quotesSource, citecheck.MaxSources+1)
	for i := range many {
		many[i] = quotesSource{string(rune('a' + i)), "x"}
	}
	var quotations strings.Builder
	for range citecheck.MaxCitations + 1 {
		quotations.WriteString("“a quotation” [1] ")
	}
	for _, c := range []struct {
		name       string
		args       any
		status     int
		code, path string
	}{
		{"no text", map[string]any{"sources": []quotesSource{{"1", "x"}}}, 400, citecheck.CodeInvalidInput, ""},
		{"unknown member", map[string]any{"text": "x", "extra": 1}, 400, citecheck.CodeInvalidInput, ""},
		{"text not a string", map[string]any{"text": 5}, 400, citecheck.CodeInvalidInput, "/text"},
		{"a source twice", map[string]any{"text": "x", "sources": []quotesSource{{"1", "a"}, {"1", "b"}}}, 400, citecheck.CodeInvalidInput, "/sources/1"},
		{"a request that is not one", map[string]any{"text": "x", "request": map[string]any{"model": "m"}}, 400, citecheck.CodeInvalidInput, "/request"},
		{"a request that is not an object", map[string]any{"text": "x", "request": []int{1}}, 400, citecheck.CodeInvalidInput, "/request"},
		{"JSON of no shape", map[string]any{"text": `{"answer": "no citations"}`}, 400, citecheck.CodeInvalidInput, "/text"},
		{"too many sources", map[string]any{"text": "x", "sources": many}, 413, citecheck.CodeLimitExceeded, "/sources"},
		{"a source too long", map[string]any{"text": "x", "sources": []quotesSource{{"1", strings.Repeat("a", citecheck.MaxTextBytes+1)}}}, 413, citecheck.CodeLimitExceeded, "/sources/0/text"},
		{"too many quotations", map[string]any{"text": quotations.String(), "sources": []quotesSource{{"1", "a quotation"}}}, 413, citecheck.CodeLimitExceeded, "/text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := mustJSON(c.args)
			resp, body := post(t, ts.URL+pathQuotesReport, args)
			if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s %.400s; want %d", resp.StatusCode, resp.Header.Get("Content-Type"), body, c.status)
			}
			e := errorOf(t, body)
			if e.Code != c.code || e.Path != c.path {
				t.Errorf("%s at %q, want %s at %q: %s", e.Code, e.Path, c.code, c.path, e.Message)
			}
			text, _, isErr := callTool(t, cs, MCPQuotesToolName, c.args)
			if !isErr || text != string(body) {
				t.Errorf("the MCP tool's error differs:\n mcp %s\nhttp %s", text, body)
			}
			_, _, direct := checkQuotesArguments(t.Context(), args, false)
			if direct == nil || string(errorEnvelope(direct)) != string(body) {
				t.Errorf("checkQuotesArguments: %v", direct)
			}
		})
	}
}

// What only HTTP can send: bytes that are not UTF-8 in a string, a body
// that is not JSON or is over max_input_bytes, another media type or
// method; each answered as the other POST routes answer it.
func TestQuotesReportRefusesWhatHTTPCanSend(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	url := ts.URL + pathQuotesReport
	notUTF8 := []byte(`{"text":"“a quotation” [1]","sources":[{"id":"1","text":"a quotation ` + "\xff\xfe" + `"}]}`)
	over := mustJSON(map[string]any{"text": strings.Repeat("a", citecheck.MaxInputBytes)})
	for _, c := range []struct {
		name, method, contentType string
		body                      []byte
		status                    int
		code, path, message       string
	}{
		{"bad UTF-8 in a source", "POST", "application/json", notUTF8, 400, citecheck.CodeInvalidInput, "/sources/0/text", "not valid UTF-8"},
		{"bad UTF-8 in the text", "POST", "application/json", []byte("{\"text\":\"\xc3\x28\"}"), 400, citecheck.CodeInvalidInput, "/text", "not valid UTF-8"},
		{"an unpaired surrogate", "POST", "application/json", []byte(`{"text":"\ud800"}`), 400, citecheck.CodeInvalidInput, "/text", "surrogate"},
		{"not JSON", "POST", "application/json", []byte(`{"text":`), 400, citecheck.CodeInvalidInput, "", "not valid JSON"},
		{"two values", "POST", "application/json", []byte(`{"text":"x"} {}`), 400, citecheck.CodeInvalidInput, "", "nothing after it"},
		{"over max_input_bytes", "POST", "application/json", over, 413, citecheck.CodeLimitExceeded, "", ""},
		{"a form", "POST", "application/x-www-form-urlencoded", []byte(`text=x`), 415, citecheck.CodeUnsupportedMedia, "", "application/json"},
		{"GET", "GET", "", nil, 405, citecheck.CodeMethodNotAllowed, "", "allowed: POST"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := do(t, c.method, url, c.contentType, c.body)
			if resp.StatusCode != c.status {
				t.Fatalf("%d %.400s; want %d", resp.StatusCode, body, c.status)
			}
			e := errorOf(t, body)
			if e.Code != c.code || e.Path != c.path || !strings.Contains(e.Message, c.message) {
				t.Errorf("%s at %q: %s; want %s at %q, %q", e.Code, e.Path, e.Message, c.code, c.path, c.message)
			}
			if c.code == citecheck.CodeLimitExceeded {
				if want := citecheck.AppendEnvelope(nil, nil, tooLarge()); string(body) != string(want) {
					t.Errorf("an oversized body: %s, want execute's %s", body, want)
				}
			}
			if c.status == 405 && resp.Header.Get("Allow") != "POST" {
				t.Errorf("Allow %q", resp.Header.Get("Allow"))
			}
		})
	}
}

// The route is charged what the MCP tool's call is (quotesCost, through
// mcpCost), not its bytes: a small body of many quotations is dear, so
// with the dear share of the slots held it waits and is refused while a
// slot stands free for cheap work.
func TestQuotesReportIsChargedAsTheMCPTool(t *testing.T) {
	t.Parallel()
	var text strings.Builder
	for i := range 24 {
		fmt.Fprintf(&text, "“quotation %d” [1] ", i)
	}
	args := mustJSON(map[string]any{"text": text.String(), "sources": []quotesSource{{"1", "x"}}})
	cost := quotesCost(args)
	if cost <= CheapCost || int64(len(args)) > CheapCost {
		t.Fatalf("the arguments (%d bytes) cost %d: not a small dear body", len(args), cost)
	}
	if mc := mcpCost(mcpToolCall(MCPQuotesToolName, json.RawMessage(args))); mc != cost {
		t.Fatalf("the MCP call costs %d, the route %d", mc, cost)
	}

	// Two slots, one of them reserved for cheap requests.
	ts := start(t, Config{MaxInFlight: 2, QueueWait: 200 * time.Millisecond})
	entered, release := holdSlots(ts.Server)
	defer release()
	url := ts.URL + pathQuotesReport
	held := postAsync(url, args)
	within(t, entered, "the first report taking its slot")
	resp, body := post(t, url, args)
	if resp.StatusCode != 503 || errorOf(t, body).Code != citecheck.CodeOverloaded || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a second dear report beside the first: %d %s", resp.StatusCode, body)
	}
	// The free slot was there for cheap work all along.
	cheap := postAsync(ts.URL+executePath, exampleInput(t))
	within(t, entered, "a cheap execute taking the free slot")
	release()
	if a := within(t, held, "the held report's answer").check(t); a.status != 200 {
		t.Errorf("the held report: %d %.200s", a.status, a.body)
	}
	if a := within(t, cheap, "the cheap execute's answer").check(t); a.status != 200 {
		t.Errorf("the cheap execute: %d", a.status)
	}
	waitIdle(t, ts)
	// The budget is given back once each answer is written, just after
	// its client has it.
	for deadline := time.Now().Add(3 * time.Second); ts.bodies.inUse() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of body memory still held", ts.bodies.inUse())
		}
	}
}

// The route is logged and counted under its pattern, with the outcome of
// the check: failed when a quotation is not verbatim.
func TestQuotesReportIsCounted(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	args := mustJSON(map[string]any{"text": pasteExampleText, "sources": []quotesSource{{pasteExampleSourceID, pasteExampleSource}}})
	if resp, body := post(t, ts.URL+pathQuotesReport, args); resp.StatusCode != 200 {
		t.Fatalf("%d %.200s", resp.StatusCode, body)
	}
	_, metrics := do(t, "GET", ts.URL+pathMetrics, "", nil)
	want := `citecheck_http_requests_total{outcome="failed",route="POST ` + pathQuotesReport + `"} 1`
	if !strings.Contains(string(metrics), want) {
		t.Errorf("the metrics lack %s", want)
	}
}

// The tool page's policy runs its own script and the report's, each by
// its hash, and nothing else inline: no 'unsafe-inline', which a hash
// source would turn off anyway, and no source the page did not have
// before but the report's script.
func TestToolPagePolicyAllowsItsScriptAndTheReports(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	resp, body := do(t, "GET", ts.URL+"/tools/citation-batch-check", "", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("%d", resp.StatusCode)
	}
	_, rest, _ := strings.Cut(string(body), "<script>")
	script, _, _ := strings.Cut(rest, "</script>")
	if strings.Count(string(body), "<script") != 1 || script == "" {
		t.Fatal("the page has not exactly one inline script")
	}
	sum := sha256.Sum256([]byte(script))
	own := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	want := "default-src 'none'; script-src " + own + " " + report.HTMLScriptSource +
		"; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	if got := resp.Header.Get("Content-Security-Policy"); got != want {
		t.Errorf("Content-Security-Policy\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(string(body), `<iframe id="paste-report" sandbox="allow-scripts"`) {
		t.Error("the report's frame is not sandboxed with allow-scripts alone")
	}
}
