package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/quotes"
)

type quotesSource struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// The answer check_quotes gives, as the test reads it.
type quotesAnswer struct {
	Quotes *struct {
		Shape    string
		Verbatim bool
		Counts   map[string]int
		Results  []struct {
			Index   int
			Quote   string
			Marker  *string
			Source  *string
			Outcome string
		}
	} `json:"quotes"`
	Error *citecheck.Error `json:"error"`
}

const declaration = "Art. 1er. Les hommes naissent et demeurent libres et égaux en droits. Les distinctions sociales ne peuvent être fondées que sur l'utilité commune."

// check_quotes (spec §5.13): an agent's draft in, one result per
// quotation, as the library answers; the same bytes as text and as
// structured content.
func TestMCPCheckQuotesAnswersAsTheLibrary(t *testing.T) {
	t.Parallel()
	cs := connectInMemory(t, NewMCPServer())
	draft := "La Déclaration dit : « Les hommes naissent et demeurent libres et égaux en droits » [1], " +
		"et ajoute que « les distinctions sociales ne peuvent être fondées que sur l'utilité commune » [1]. Voir aussi [2] « ailleurs » [9]."
	args := map[string]any{"text": draft, "sources": []quotesSource{{"1", declaration}}}
	text, structured, isErr := callTool(t, cs, MCPQuotesToolName, args)
	a, err := quotes.Check(t.Context(), []byte(draft), []quotes.Source{{ID: "1", Text: declaration}}, quotes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := string(a.AppendAnswerJSON([]byte(`{"quotes":`))) + "}"
	if isErr || text != want || !sameJSON(structured, []byte(want)) {
		t.Fatalf("isError %v\n text %s\nwant %s", isErr, text, want)
	}
	var got quotesAnswer
	json.Unmarshal([]byte(text), &got)
	var outcomes []string
	for _, r := range got.Quotes.Results {
		outcomes = append(outcomes, r.Outcome)
	}
	if strings.Join(outcomes, ",") != "verbatim,near,no_source" || got.Quotes.Verbatim {
		t.Fatalf("outcomes %v in %s", outcomes, text)
	}
}

// Refused arguments are tool errors carrying the error object, with the
// contract's limits on the sources, whose path is the JSON Pointer in the
// arguments of what is refused: within text or request, the value itself
// (the message points within it), and a request's document where its
// text is.
func TestMCPCheckQuotesRefusals(t *testing.T) {
	t.Parallel()
	cs := connectInMemory(t, NewMCPServer())
	many := make([]quotesSource, citecheck.MaxSources+1)
	for i := range many {
		many[i] = quotesSource{string(rune('a' + i)), "x"}
	}
	doc := func(text string) map[string]any {
		return map[string]any{"type": "document", "source": map[string]any{"type": "text", "media_type": "text/plain", "data": text}}
	}
	request := func(docs ...map[string]any) map[string]any {
		content := []any{}
		for _, d := range docs {
			content = append(content, d)
		}
		return map[string]any{"messages": []any{map[string]any{"role": "user", "content": content}}}
	}
	manyDocs := make([]map[string]any, citecheck.MaxSources+1)
	for i := range manyDocs {
		manyDocs[i] = doc("x")
	}
	for _, c := range []struct {
		name       string
		args       any
		code, path string
	}{
		{"no text", map[string]any{"sources": []quotesSource{{"1", "x"}}}, citecheck.CodeInvalidInput, ""},
		{"unknown member", map[string]any{"text": "x", "extra": 1}, citecheck.CodeInvalidInput, ""},
		{"a source without text", map[string]any{"text": "x", "sources": []map[string]any{{"id": "1"}}}, citecheck.CodeInvalidInput, "/sources/0"},
		{"a source twice", map[string]any{"text": "x", "sources": []quotesSource{{"1", "a"}, {"1", "b"}}}, citecheck.CodeInvalidInput, "/sources/1"},
		{"a source that is a document's number", map[string]any{"text": "x", "request": request(doc("a")), "sources": []quotesSource{{"0", "b"}}}, citecheck.CodeInvalidInput, "/sources/0"},
		{"JSON of no shape", map[string]any{"text": `{"answer": "no citations"}`}, citecheck.CodeInvalidInput, "/text"},
		{"JSON with a trailing comma", map[string]any{"text": `{"citations":[{"source_id":"1","quote":"q"},]}`}, citecheck.CodeInvalidInput, "/text"},
		{"an index past 2^53", map[string]any{"text": `{"citations":[{"source_id":9007199254740993,"quote":"q"}]}`}, citecheck.CodeInvalidInput, "/text"},
		{"too many sources", map[string]any{"text": "x", "sources": many}, citecheck.CodeLimitExceeded, "/sources"},
		{"too many documents", map[string]any{"text": "x", "request": request(manyDocs...)}, citecheck.CodeLimitExceeded, "/request"},
		{"a source too long", map[string]any{"text": "x", "sources": []quotesSource{{"1", strings.Repeat("a", citecheck.MaxTextBytes+1)}}}, citecheck.CodeLimitExceeded, "/sources/0/text"},
		{"a document too long", map[string]any{"text": "x", "request": request(doc("a"), doc(strings.Repeat("a", citecheck.MaxTextBytes+1)))}, citecheck.CodeLimitExceeded, "/request/messages/0/content/1/source/data"},
		{"a request that is not one", map[string]any{"text": "x", "request": map[string]any{"model": "m"}}, citecheck.CodeInvalidInput, "/request"},
		{"a document whose text is a number", map[string]any{"text": "x", "request": map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "document", "source": map[string]any{"type": "text", "data": 5}}}}}}}, citecheck.CodeInvalidInput, "/request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, _, isErr := callTool(t, cs, MCPQuotesToolName, c.args)
			var got quotesAnswer
			if err := json.Unmarshal([]byte(text), &got); err != nil || !isErr || got.Error == nil || got.Error.Code != c.code || got.Error.Message == "" {
				t.Fatalf("isError %v, %.400s; want %s", isErr, text, c.code)
			}
			if got.Error.Path != c.path {
				t.Errorf("path %q, want %q (%s)", got.Error.Path, c.path, got.Error.Message)
			}
		})
	}
}

// An Anthropic response with its request: the documents are the sources.
func TestMCPCheckQuotesReadsAnAnthropicResponse(t *testing.T) {
	t.Parallel()
	cs := connectInMemory(t, NewMCPServer())
	request := map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "document", "source": map[string]any{"type": "text", "media_type": "text/plain", "data": declaration}}}}}}
	response := `{"type":"message","content":[{"type":"text","text":"Born free.","citations":[{"type":"char_location","cited_text":"Les hommes naissent et demeurent libres","document_index":0,"start_char_index":10,"end_char_index":49}]}]}`
	text, _, isErr := callTool(t, cs, MCPQuotesToolName, map[string]any{"text": response, "request": request})
	var got quotesAnswer
	if err := json.Unmarshal([]byte(text), &got); err != nil || isErr || got.Quotes == nil || got.Quotes.Shape != "anthropic" || !got.Quotes.Verbatim {
		t.Fatalf("isError %v: %s", isErr, text)
	}
}

// check_quotes checks at most max_citations quotations a call (spec
// §5.13), so that its answer is bounded: the 31,700 unmarked
// quotations against 16 one-character sources, which held 974 MB and
// answered 9–23 MB, are refused at /text as soon as the 257th is read
// (actual 257: the rest is not read).
func TestMCPCheckQuotesBoundsTheQuotations(t *testing.T) {
	t.Parallel()
	cs := connectInMemory(t, NewMCPServer())
	tiny := make([]quotesSource, citecheck.MaxSources)
	for i := range tiny {
		tiny[i] = quotesSource{string(rune('a' + i)), string(rune('a' + i))}
	}
	draft := func(n int) string {
		return strings.Repeat("“the of and to in a is that” ", n)
	}
	text, _, isErr := callTool(t, cs, MCPQuotesToolName, map[string]any{"text": draft(31700), "sources": tiny})
	var got quotesAnswer
	if err := json.Unmarshal([]byte(text), &got); err != nil || !isErr || got.Error == nil {
		t.Fatalf("isError %v, %.300s", isErr, text)
	}
	if e := got.Error; e.Code != citecheck.CodeLimitExceeded || e.Path != "/text" || e.Limit != citecheck.LimitCitations || e.Max != citecheck.MaxCitations || e.Actual != citecheck.MaxCitations+1 {
		t.Fatalf("%+v", *e)
	}
	// At the bound, every one is checked, each costing its real scan.
	text, _, isErr = callTool(t, cs, MCPQuotesToolName, map[string]any{"text": draft(citecheck.MaxCitations), "sources": tiny})
	got = quotesAnswer{}
	if err := json.Unmarshal([]byte(text), &got); err != nil || isErr || got.Quotes == nil || got.Quotes.Counts["not_found"] != citecheck.MaxCitations {
		t.Fatalf("isError %v, %.300s", isErr, text)
	}
}

// A citation of a request's document that carries no text (a PDF) is
// not_checked, saying how to give its text, not no_source; given as
// source {"id": "0", "text": …}, it is checked.
func TestMCPCheckQuotesSaysAPDFCarriesNoText(t *testing.T) {
	t.Parallel()
	cs := connectInMemory(t, NewMCPServer())
	request := map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "document", "source": map[string]any{"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}}}}}}
	response := `{"type":"message","content":[{"type":"text","text":"Born free.","citations":[{"type":"page_location","cited_text":"Les hommes naissent et demeurent libres","document_index":0,"start_page_number":1,"end_page_number":2}]}]}`
	for _, c := range []struct {
		sources []quotesSource
		outcome string
	}{{nil, "not_checked"}, {[]quotesSource{{"0", declaration}}, "verbatim"}} {
		args := map[string]any{"text": response, "request": request}
		if c.sources != nil {
			args["sources"] = c.sources
		}
		text, _, isErr := callTool(t, cs, MCPQuotesToolName, args)
		var got quotesAnswer
		if err := json.Unmarshal([]byte(text), &got); err != nil || isErr || got.Quotes == nil || got.Quotes.Results[0].Outcome != c.outcome {
			t.Fatalf("isError %v: %s", isErr, text)
		}
		if c.outcome == "not_checked" && !strings.Contains(text, `a PDF as base64 data, from which citecheck reads no text`) {
			t.Errorf("no why: %s", text)
		}
	}
}
