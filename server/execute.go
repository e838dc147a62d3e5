package server

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/citecheck/citecheck"
)

// serveExecute is POST /v1/tools/{id}/versions/{version}/execute. The checks
// run cheapest first, and none reads the body before the request holds a
// check slot: a refused request costs no memory.
func (s *Server) serveExecute(w http.ResponseWriter, r *http.Request) {
	if e := lookupTool(r.PathValue("id"), r.PathValue("version")); e != nil {
		writeError(w, r, e)
		return
	}
	if e := checkMediaType(r); e != nil {
		writeError(w, r, e)
		return
	}
	// A declared length over the limit is refused before reading a byte;
	// the connection is then closed rather than drained (net/http does
	// that for an unread body this large).
	if r.ContentLength > citecheck.MaxInputBytes {
		writeError(w, r, tooLarge())
		return
	}
	release := s.acquire(r)
	if release == nil {
		s.overloaded(w, r)
		return
	}
	defer release()
	if s.testHookHoldingSlot != nil {
		s.testHookHoldingSlot(r)
	}
	// ReadBody stops after max+1 bytes, whatever the client sends (chunked
	// bodies have no Content-Length); MaxBytesReader is the second fence,
	// and makes net/http close a connection whose body was not drained.
	body, e := citecheck.ReadBody(http.MaxBytesReader(w, r.Body, citecheck.MaxInputBytes+1))
	if e != nil {
		writeError(w, r, e)
		return
	}
	res, e := citecheck.Run(body)
	writeEnvelope(w, r, res, e)
}

// checkMediaType accepts application/json, with at most a charset parameter
// naming UTF-8 (the contract's only encoding), case-insensitively. Anything
// else, a missing Content-Type included, is 415: curl -d sends a form type,
// and guessing would hide the mistake.
func checkMediaType(r *http.Request) *citecheck.Error {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	ok := err == nil && mt == "application/json"
	for k, v := range params {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			ok = false
		}
	}
	if ok {
		return nil
	}
	got := "Content-Type is " + strconv.Quote(ct)
	if ct == "" {
		got = "Content-Type is missing"
	}
	return &citecheck.Error{Code: citecheck.CodeUnsupportedMedia,
		Message: got + "; send application/json (with charset=utf-8, if any)"}
}

func itoa(n int) string { return strconv.Itoa(n) }
