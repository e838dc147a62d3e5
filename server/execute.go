package server

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/citecheck/citecheck"
)

// serveExecute is POST /v1/tools/{id}/versions/{version}/execute. The checks
// run cheapest first; the body is read under the body memory budget before
// the request takes a check slot, and the answer written after it gives
// the slot back (admission.go). The check runs with the request's context,
// so it stops, and gives its slot back, when the client goes away.
func (s *Server) serveExecute(w http.ResponseWriter, r *http.Request) {
	s.serveBody(w, r, 1, func(body []byte) (int, []byte) {
		res, e := citecheck.RunContext(r.Context(), body)
		return envelope(r, res, citecheck.AsError(e))
	})
}

// serveBody admits and reads the body of a tool call, checks it with answer
// while holding a check slot (taken at a cost of factor × the body's
// bytes, see cost.go), and writes answer's status and bytes after
// giving the slot back (admission.go).
func (s *Server) serveBody(w http.ResponseWriter, r *http.Request, factor int64, answer func(body []byte) (status int, out []byte)) {
	if e := citecheck.LookupTool(r.PathValue("id"), r.PathValue("version")); e != nil {
		writeError(w, r, citecheck.AsError(e))
		return
	}
	body, a := s.admitBody(w, r, citecheck.MaxInputBytes, s.readBody, tooLarge)
	if a == nil {
		return
	}
	defer a.end()
	// answer copies out what it keeps of the body (citecheck.Decode does),
	// so the buffer is free again once answer returns, or if it never runs.
	defer s.bodyBufs.put(body)
	a.check(w, r, factor*int64(len(body)), func() (int, func()) {
		if s.testHookHoldingSlot != nil {
			s.testHookHoldingSlot(r)
		}
		status, out := answer(body)
		if status == http.StatusServiceUnavailable { // the check stopped: overloaded, as the slot wait's
			w.Header().Set("Retry-After", retryAfter(s.cfg.QueueWait))
		}
		return len(out), func() { writeJSON(w, status, out) }
	})
}

// readBody reads the request body under max_input_bytes, answering exactly
// as citecheck.ReadBody would. MaxBytesReader is the outer fence: nothing
// past max+1 bytes is ever read, and net/http closes a connection whose
// body was left unread.
//
// A body of declared length (known here to be within the limit) is read
// into a buffer of about that size, recycled (bodyBuffers): io.ReadAll,
// which ReadBody uses, grows its buffer by doubling and so allocates about
// three times a 1 MiB body, which under a burst of large bodies is most of
// the server's memory. A body of unknown length (chunked) goes through
// ReadBody itself.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *citecheck.Error) {
	body := http.MaxBytesReader(w, r.Body, citecheck.MaxInputBytes+1)
	n := r.ContentLength
	if n < 0 || n > citecheck.MaxInputBytes {
		b, err := citecheck.ReadBody(body)
		return b, citecheck.AsError(err)
	}
	buf := s.bodyBufs.get(int(n))
	if _, err := io.ReadFull(body, buf); err != nil {
		s.bodyBufs.put(buf)
		// The engine's own wording for a body that could not be read.
		_, e := citecheck.ReadBody(failingReader{err})
		return nil, citecheck.AsError(e)
	}
	return buf, nil
}

// failingReader fails at once with err.
type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

// checkMediaType accepts application/json, with at most a charset parameter
// naming UTF-8 (the contract's only encoding), case-insensitively. Anything
// else, a missing Content-Type included, is 415: curl -d sends a form type,
// and guessing would hide the mistake.
func checkMediaType(r *http.Request) *citecheck.Error {
	ct := r.Header.Get("Content-Type")
	if ct == "application/json" { // what nearly every client sends: no parsing
		return nil
	}
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
	got := fmt.Sprintf("Content-Type is %q", citecheck.Echo(ct))
	if ct == "" {
		got = "Content-Type is missing"
	}
	return &citecheck.Error{Code: citecheck.CodeUnsupportedMedia,
		Message: got + "; send application/json (with charset=utf-8, if any)"}
}

// checkContentEncoding accepts a body with no content coding: no
// Content-Encoding, or only "identity" (any case). Anything else (gzip,
// br, deflate, …) is 415, as RFC 9110 §15.5.16 has it: the service
// decodes no coding, and reading coded bytes as JSON would refuse them as
// "not I-JSON", which hides the cause. An empty value, or an empty
// member of the list, is no coding.
func checkContentEncoding(r *http.Request) *citecheck.Error {
	for _, v := range r.Header.Values("Content-Encoding") {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.Trim(c, " \t"); c != "" && !strings.EqualFold(c, "identity") { // OWS is space and tab (RFC 9110 §5.6.3)
				return &citecheck.Error{Code: citecheck.CodeUnsupportedMedia,
					Message: fmt.Sprintf("Content-Encoding is %q", citecheck.Echo(strings.TrimSpace(v))) +
						"; the service reads only bodies with no content coding: send the JSON itself, without Content-Encoding (or with identity)"}
			}
		}
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }
