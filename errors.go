package citecheck

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/jsonenc"
)

// Error codes. The engine returns only CodeInvalidInput and
// CodeLimitExceeded; the others belong to the interfaces (HTTP, MCP, CLI),
// which report them with the same Error type.
const (
	CodeInvalidInput     = "invalid_input"      // the body breaks I-JSON, the schema or a rule across members
	CodeLimitExceeded    = "limit_exceeded"     // the body is well formed but over one of the contract's limits
	CodeNotFound         = "not_found"          // no such tool, version or route
	CodeMethodNotAllowed = "method_not_allowed" // the route exists, the method does not
	CodeUnsupportedMedia = "unsupported_media_type"
	CodeOverloaded       = "overloaded"  // too many requests in flight; retry later
	CodeUsage            = "usage"       // the command line is wrong (CLI only)
	CodeUnavailable      = "unavailable" // no citecheck service answered at run --base-url (CLI only)
	CodeInternal         = "internal"    // a bug or an I/O failure on our side
)

// Error is the one error object every interface reports (spec §1, "The error
// object"). Limit, Max and Actual are set only for CodeLimitExceeded.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"` // one line: where, and which rule
	Path    string `json:"path"`    // RFC 6901 JSON Pointer to the offending value; "" is the whole body
	Limit   string `json:"limit,omitempty"`
	Max     int64  `json:"max,omitempty"`
	Actual  int64  `json:"actual,omitempty"` // measured bytes, items or units
}

// MarshalJSON writes the object AppendJSON writes (the json tags are for
// reading an error object back, as a client of the service does).
func (e *Error) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// Error implements the error interface with the message.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// invalid is the invalid_input error at path with message msg.
//
// The engine's messages are built with strconv and concatenation, not
// fmt: the WebAssembly module links the engine, and fmt's printing
// would add about 85 KB to it gzipped (docs/javascript.md, "Size and
// speed"; js/wasm's TestWasmLinksNoFmtPrinting holds it).
func invalid(path, msg string) *Error {
	return &Error{Code: CodeInvalidInput, Path: path, Message: msg}
}

// limitError reports that the value at path measures actual against max.
// what names the unit ("bytes", "items", "UTF-16 code units").
func limitError(path, limit string, max, actual int64, what string) *Error {
	where := "body"
	if path != "" {
		where = path[1:]
	}
	return &Error{
		Code: CodeLimitExceeded, Path: path, Limit: limit, Max: max, Actual: actual,
		Message: where + " is " + strconv.FormatInt(actual, 10) + " " + what + "; " + limit + " is " + strconv.FormatInt(max, 10),
	}
}

// MaxEchoBytes bounds how much of one piece of input an error message
// repeats: as much as the longest label (max_label_bytes), so that an id or
// a version within the limits is always echoed whole, while a 1 MiB member
// name or number literal costs a message of a few hundred bytes.
const MaxEchoBytes = MaxLabelBytes

// Echo is a piece of input as an error message repeats it; every message
// that repeats input formats it through Echo, so that an error answer is
// small whatever the input holds (spec §5). With %s or %v it prints as it
// is, with %q quoted as strconv.Quote quotes; a piece over MaxEchoBytes is
// cut at a code point boundary and followed by an ellipsis and its full
// length in bytes:
//
//	member "aaaa…" (1048576 bytes) is not allowed
//
// The error's Path is never cut: it is the only exact way to the value.
// Cost: linear in the part echoed, not in the piece.
type Echo string

// Format implements fmt.Formatter for %s, %v and %q.
func (e Echo) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		io.WriteString(f, e.Quoted())
	} else {
		io.WriteString(f, e.String())
	}
}

// String is the %s form.
func (e Echo) String() string {
	s, after := e.cut()
	return s + after
}

// Quoted is the %q form, for messages built without fmt (the
// WebAssembly module links no fmt printer; docs/javascript.md, "Size").
func (e Echo) Quoted() string {
	s, after := e.cut()
	return strconv.Quote(s) + after
}

// cut returns e as a message repeats it: s is e itself, or at most its
// first MaxEchoBytes bytes, cut at a code point boundary, and an
// ellipsis; after is then " (N bytes)", else "".
func (e Echo) cut() (s, after string) {
	s = string(e)
	if len(s) <= MaxEchoBytes {
		return s, ""
	}
	n := MaxEchoBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…", " (" + strconv.Itoa(len(e)) + " bytes)"
}

// AsError returns err as the *Error every interface answers with: err
// itself when it is one or wraps one (errors.As), nil for nil (and for an
// error that holds a nil *Error), and for any other error an internal
// error carrying its message.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e // nil when err holds a nil *Error
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}

// withError returns v and e, e as an error: nil when e is nil, never a
// non-nil error that holds a nil *Error.
func withError[T any](v T, e *Error) (T, error) {
	if e == nil {
		return v, nil
	}
	return v, e
}

// AppendJSON appends the error object's JSON to dst, members in the order
// spec §1 shows; limit, max and actual only for limit_exceeded.
func (e *Error) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"code":`...)
	dst = jsonenc.AppendString(dst, e.Code)
	dst = append(dst, `,"message":`...)
	dst = jsonenc.AppendString(dst, e.Message)
	dst = append(dst, `,"path":`...)
	dst = jsonenc.AppendString(dst, e.Path)
	if e.Limit != "" {
		dst = append(dst, `,"limit":`...)
		dst = jsonenc.AppendString(dst, e.Limit)
		dst = append(dst, `,"max":`...)
		dst = strconv.AppendInt(dst, e.Max, 10)
		dst = append(dst, `,"actual":`...)
		dst = strconv.AppendInt(dst, e.Actual, 10)
	}
	return append(dst, '}')
}
