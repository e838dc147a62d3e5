package server

import (
	"net/http"
	"strconv"

	"github.com/citecheck/citecheck"
)

// statusOf is the one table from error codes to HTTP statuses. Every error
// the service answers goes through it, so a code never means two statuses.
var statusOf = map[string]int{
	citecheck.CodeInvalidInput:     http.StatusBadRequest,
	citecheck.CodeLimitExceeded:    http.StatusRequestEntityTooLarge,
	citecheck.CodeNotFound:         http.StatusNotFound,
	citecheck.CodeMethodNotAllowed: http.StatusMethodNotAllowed,
	citecheck.CodeUnsupportedMedia: http.StatusUnsupportedMediaType,
	citecheck.CodeOverloaded:       http.StatusServiceUnavailable,
	citecheck.CodeUsage:            http.StatusBadRequest,
	citecheck.CodeUnavailable:      http.StatusBadGateway,
	citecheck.CodeInternal:         http.StatusInternalServerError,
}

// cliOnly reports whether only the CLI reports the code: the service
// never answers it, so it is neither documented nor mapped back from a
// status.
func cliOnly(code string) bool {
	return code == citecheck.CodeUsage || code == citecheck.CodeUnavailable
}

// HTTPStatus returns the HTTP status the service answers for an error code;
// an unknown code is a bug on our side, so 500.
func HTTPStatus(code string) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// codeForStatus maps a status written by code we do not own (the MCP SDK's
// plain-text errors) back to an error code, so that its body can be
// rewritten as an error object too.
func codeForStatus(status int) string {
	for code, s := range statusOf {
		if s == status && !cliOnly(code) {
			return code
		}
	}
	if status >= 500 {
		return citecheck.CodeInternal
	}
	return citecheck.CodeInvalidInput
}

// writeEnvelope writes an engine answer: the status follows the error code,
// or 200 for a result (valid or not: a failed citation is an answer, not an
// error). The body is exactly citecheck.AppendEnvelope's bytes, which is
// what lets `citecheck run --base-url` print what the in-process run prints.
func writeEnvelope(w http.ResponseWriter, r *http.Request, res *citecheck.Result, e *citecheck.Error) {
	status, body := envelope(r, res, e)
	writeJSON(w, status, body)
}

// envelope is the status and body writeEnvelope writes, for a handler that
// must know the answer's size before it writes it.
func envelope(r *http.Request, res *citecheck.Result, e *citecheck.Error) (int, []byte) {
	setOutcome(r, outcomeOf(res, e))
	return answerStatus(e), citecheck.AppendEnvelope(make([]byte, 0, 512), res, e)
}

// answerStatus is the status of a tool call's answer: 200 for a result
// (a failed citation included), else the status of the error's code.
func answerStatus(e *citecheck.Error) int {
	if e != nil {
		return HTTPStatus(e.Code)
	}
	return http.StatusOK
}

// writeError writes {"error": e} with the status of its code.
func writeError(w http.ResponseWriter, r *http.Request, e *citecheck.Error) {
	writeEnvelope(w, r, nil, e)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(body)
}

// notFound is the error for a path, tool or version that does not exist.
func notFound(msg string) *citecheck.Error {
	return &citecheck.Error{Code: citecheck.CodeNotFound, Message: msg}
}

// tooLarge is the answer for a body known to be over max_input_bytes before
// it is read (from its Content-Length). It is the error citecheck.ReadBody
// gives for such a body (actual = max+1: the reader stops there), so the
// early answer and the read answer are the same bytes; a test holds them
// equal.
func tooLarge() *citecheck.Error { return citecheck.BodyTooLarge(citecheck.MaxInputBytes + 1) }
