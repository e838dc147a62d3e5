package server

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/report"
)

//go:embed page.html.tmpl
var pageTemplate string

// pageRenderer renders the HTML tool page. Everything that comes from the
// contract is worked out once; only the addresses change per request.
type pageRenderer struct {
	tmpl   *template.Template
	static pageStatic
}

// pageStatic is the part of the page that follows from the contract alone.
type pageStatic struct {
	Title, ID, Version, Description, Pricing string
	UseWhen, Supported, Unsupported          []string
	Semantics                                []string
	Input, Output                            []field
	Limits                                   []limit
	ExampleInput                             string // indented, as in the contract's member order
	ExampleResponse                          string // {"result": output}, indented
	ExampleInputCompact                      string
	MCPArguments                             string // {"id", "version", "input"}, indented
	ContractPath, ExecutePath, PagePath      string
	ExplainPath                              string // beyond the contract (spec §5)
	QuotesReportPath                         string // beyond the contract: the paste mode's route
	PasteText, PasteSourceID, PasteSource    string // the paste form's example
	LimitInputBytes                          int
}

// pageData is one rendering: the static part plus this server's addresses.
type pageData struct {
	pageStatic
	Base, ContractURL, ExecuteURL, MCPURL, CatalogueURL string
	OpenAPIPath, OpenAPIURL, ExplainURL                 string
	Curl, CLI, DesktopConfig, HTTPConfig                string
}

func newPageRenderer(t *toolInfo) *pageRenderer {
	in, err := schemaFields(t.InputSchema)
	must(err)
	out, err := schemaFields(t.Output)
	must(err)
	limits, err := orderedLimits(t.Limits)
	must(err)
	ex := t.Examples[0]
	st := pageStatic{
		Title:               title(t.ID),
		ID:                  t.ID,
		Version:             t.Version,
		Description:         t.Description,
		Pricing:             pricingText(t.Pricing),
		Supported:           t.Supported,
		Unsupported:         t.Unsupported,
		Semantics:           t.Semantics,
		Input:               in,
		Output:              out,
		Limits:              limits,
		ExampleInput:        indent(ex.Input),
		ExampleResponse:     indent(envelopeOf(ex.Output)),
		ExampleInputCompact: compact(ex.Input),
		MCPArguments:        indent(mcpArguments(t, ex.Input)),
		ContractPath:        t.contractPath(),
		ExecutePath:         t.ExecuteURL,
		ExplainPath:         t.explainPath(),
		PagePath:            t.pagePath(),
		QuotesReportPath:    pathQuotesReport,
		PasteText:           pasteExampleText,
		PasteSourceID:       pasteExampleSourceID,
		PasteSource:         pasteExampleSource,
		LimitInputBytes:     citecheck.MaxInputBytes,
	}
	// "Use when" is the first few supported operations, as on the
	// published page: the ones that name the task, not the edge cases.
	st.UseWhen = t.Supported[:min(3, len(t.Supported))]
	return &pageRenderer{
		tmpl:   template.Must(template.New("page").Parse(pageTemplate)),
		static: st,
	}
}

// The paste form's example: one quotation of each common outcome
// (verbatim, near by white space, not_found, near by case in a
// blockquote), so that a first click shows what the report looks like.
const (
	pasteExampleText = "The committee found that the budget \"does not balance\" [minutes]. " +
		"It asked for \"a revised  plan by June\" [minutes], and said the plan \"was not ready\" [minutes].\n\n" +
		"> The Committee met on 4 May. [minutes]\n"
	pasteExampleSourceID = "minutes"
	pasteExampleSource   = "The committee met on 4 May. It found that the budget “does not balance” and asked for a revised plan by June. " +
		"It said nothing about the schedule."
)

func must(err error) {
	if err != nil {
		panic("server: the embedded contract does not describe: " + err.Error())
	}
}

// servePage is GET /tools/{id}: the tool page as HTML.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	// The page is per tool, not per version: any id but ours is unknown.
	if e := citecheck.LookupTool(r.PathValue("id"), citecheck.ToolVersion); e != nil {
		writeError(w, r, citecheck.AsError(e))
		return
	}
	var buf bytes.Buffer
	if err := s.page().render(&buf, s.baseURL(r)); err != nil {
		s.log.Error("rendering the tool page", "err", err)
		writeError(w, r, &citecheck.Error{Code: citecheck.CodeInternal, Message: "the tool page could not be rendered"})
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", pageCSP(buf.Bytes()))
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
}

// pageCSP is the tool page's Content-Security-Policy: it talks only to
// us and runs two inline scripts, each allowed by its hash: its own (the
// one <script> of page, hashed as served) and the HTML report's
// (report.HTMLScriptSource), which the paste mode shows in a sandboxed
// srcdoc frame, and a srcdoc document inherits this policy. A hash
// source turns 'unsafe-inline' off, so nothing else inline runs: no
// event handler attribute, no javascript: URL, no script a report or a
// source smuggles in. Cost: one SHA-256 of the script (about 20 KB).
func pageCSP(page []byte) string {
	return "default-src 'none'; script-src " + strings.TrimSpace(scriptHash(page)+" "+report.HTMLScriptSource) +
		"; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// scriptHash is the CSP hash source of the text of page's first inline
// <script> element, "" when it has none.
func scriptHash(page []byte) string {
	_, rest, ok := bytes.Cut(page, []byte("<script>"))
	if !ok {
		return ""
	}
	script, _, ok := bytes.Cut(rest, []byte("</script>"))
	if !ok {
		return ""
	}
	sum := sha256.Sum256(script)
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

func (p *pageRenderer) render(buf *bytes.Buffer, base string) error {
	d := pageData{
		pageStatic:   p.static,
		Base:         base,
		ContractURL:  base + p.static.ContractPath,
		ExecuteURL:   base + p.static.ExecutePath,
		ExplainURL:   base + p.static.ExplainPath,
		MCPURL:       base + pathMCP,
		CatalogueURL: base + pathCatalogue,
		OpenAPIPath:  pathOpenAPI,
		OpenAPIURL:   base + pathOpenAPI,
	}
	d.Curl = "curl -X POST " + shellQuote(d.ExecuteURL) + " \\\n  -H 'Content-Type: application/json' \\\n  -d " + shellQuote(p.static.ExampleInputCompact)
	d.CLI = "citecheck run " + p.static.ID + " " + p.static.Version + " --input input.json --base-url " + shellQuote(base)
	d.DesktopConfig = indent([]byte(`{"mcpServers":{"citecheck":{"command":"citecheck","args":["mcp"]}}}`))
	d.HTTPConfig = indent([]byte(`{"mcpServers":{"citecheck":{"type":"http","url":` + strconv.Quote(d.MCPURL) + `}}}`))
	return p.tmpl.Execute(buf, d)
}

// title turns "citation-batch-check" into "Citation batch check".
func title(id string) string {
	s := strings.ReplaceAll(id, "-", " ")
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func pricingText(p pricing) string {
	if p.ChargeUSD == nil || *p.ChargeUSD == 0 {
		return "free, no key needed"
	}
	return "$" + strconv.FormatFloat(*p.ChargeUSD, 'f', -1, 64) + " a call"
}

func indent(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

func compact(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func envelopeOf(output []byte) []byte {
	return append(append([]byte(`{"result":`), output...), '}')
}

func mcpArguments(t *toolInfo, input []byte) []byte {
	return []byte(`{"id":` + strconv.Quote(t.ID) + `,"version":` + strconv.Quote(t.Version) + `,"input":` + compact(input) + `}`)
}

// shellQuote quotes s for a POSIX shell, so the copied command is the
// command shown whatever the example holds.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
