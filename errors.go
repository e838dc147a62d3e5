package citecheck

import "fmt"

// Error codes. The engine returns only CodeInvalidInput and
// CodeLimitExceeded; the others belong to the interfaces (HTTP, MCP, CLI),
// which report them with the same Error type.
const (
	CodeInvalidInput     = "invalid_input"      // the body breaks I-JSON, the schema or a rule across members
	CodeLimitExceeded    = "limit_exceeded"     // the body is well formed but over one of the contract's limits
	CodeNotFound         = "not_found"          // no such tool, version or route
	CodeMethodNotAllowed = "method_not_allowed" // the route exists, the method does not
	CodeUnsupportedMedia = "unsupported_media_type"
	CodeOverloaded       = "overloaded" // too many requests in flight; retry later
	CodeUsage            = "usage"      // the command line is wrong (CLI only)
	CodeInternal         = "internal"   // a bug or an I/O failure on our side
)

// Error is the one error object every interface reports (SPEC §1, "The error
// object"). Limit, Max and Actual are set only for CodeLimitExceeded.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"` // one line: where, and which rule
	Path    string `json:"path"`    // RFC 6901 JSON Pointer to the offending value; "" is the whole body
	Limit   string `json:"limit,omitempty"`
	Max     int64  `json:"max,omitempty"`
	Actual  int64  `json:"actual,omitempty"` // measured bytes, items or units
}

// Error implements the error interface with the message.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

func invalidf(path, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidInput, Path: path, Message: fmt.Sprintf(format, args...)}
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
		Message: fmt.Sprintf("%s is %d %s; %s is %d", where, actual, what, limit, max),
	}
}

// echo is how a message repeats text of the input (a member name, a number
// literal, a label): every such echo goes through here, so that how much of
// it a message shows is decided in one place.
func echo(s string) string { return s }
