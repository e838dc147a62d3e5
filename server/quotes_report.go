package server

import (
	"net/http"
	"strconv"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/quotes"
	"github.com/citecheck/citecheck/report"
)

// pathQuotesReport is POST /v1/quotes/report, beyond the contract (spec
// §5): check_quotes over HTTP, answered with the HTML report a person
// reads (docs/report-html.md). The tool page's paste mode calls it.
const pathQuotesReport = "/v1/quotes/report"

// quotesReportName is the name the report gives the checked text: the
// argument's, as the command names a text given inline.
const quotesReportName = "text"

// serveQuotesReport is POST /v1/quotes/report: the body is check_quotes's
// arguments {"text", "sources", "request"}, read by the tool's own reader
// and checked by its own code (checkQuotesArguments), with explain, so
// that a failing quotation shows its fix. It goes through the gates of
// execute and /mcp (admission.go): the body memory budget, a check slot
// at the cost the MCP tool's call is charged (quotesCost, so the two
// weigh the same), and the answer written after the slot is given back.
// A check is answered 200 with the report, text/html; a refused input
// with {"error": …} and the status of its code, as every route.
//
// Cost: the check's (docs/quotes.md), plus building the page, linear in
// the results: each item holds its quotation and at most two passages of
// 2·report.ExcerptContext code points of context, never a whole source;
// at most max_citations (256) items.
func (s *Server) serveQuotesReport(w http.ResponseWriter, r *http.Request) {
	body, a := s.admitBody(w, r, citecheck.MaxInputBytes, s.readBody, tooLarge)
	if a == nil {
		return
	}
	defer a.end()
	// checkQuotesArguments copies what it keeps of the body (every string
	// is unquoted into one of its own, the request cloned), so the buffer
	// is free once it returns.
	defer s.bodyBufs.put(body)
	a.check(w, r, quotesCost(body), func() (int, func()) {
		if s.testHookHoldingSlot != nil {
			s.testHookHoldingSlot(r)
		}
		ans, text, e := checkQuotesArguments(r.Context(), body, true)
		if e == nil {
			// A client that hung up during the check gets no page built.
			e = stopped(r.Context())
		}
		if e != nil {
			setOutcome(r, e.Code)
			out := errorEnvelope(e)
			status := HTTPStatus(e.Code)
			if status == http.StatusServiceUnavailable { // the check stopped: overloaded, as the slot wait's
				w.Header().Set("Retry-After", retryAfter(s.cfg.QueueWait))
			}
			return len(out), func() { writeJSON(w, status, out) }
		}
		outcome := outcomeFailed
		if ans.Verbatim() {
			outcome = outcomeValid
		}
		setOutcome(r, outcome)
		out := quotesReportHTML(ans, text)
		return len(out), func() { writeReport(w, out) }
	})
}

// quotesReportHTML is the HTML report of ans, the answer for text.
func quotesReportHTML(ans *quotes.Answer, text string) []byte {
	p := quotes.NewHTMLPage(quotesReportName, ans.Shape, []byte(text))
	p.Items = ans.AppendHTMLItems(make([]report.Item, 0, len(ans.Results)))
	return report.AppendHTML(nil, p)
}

// reportCSP is the report's own policy (it carries the same in a meta
// element) sent as a header as well: opened by itself, the answer runs
// its one script and fetches nothing; and no page frames it (the tool
// page shows the HTML it fetched in a srcdoc frame, not this address).
var reportCSP = "default-src 'none'; script-src " + report.HTMLScriptSource +
	"; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// writeReport writes an HTML report, 200.
func writeReport(w http.ResponseWriter, page []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(page)))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", reportCSP)
	w.WriteHeader(http.StatusOK)
	w.Write(page)
}
