package citecheck

import (
	"io"
	"strconv"
)

// AppendJSON appends the error object's JSON to dst, members in the order
// spec §1 shows; limit, max and actual only for limit_exceeded.
func (e *Error) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"code":`...)
	dst = appendString(dst, e.Code)
	dst = append(dst, `,"message":`...)
	dst = appendString(dst, e.Message)
	dst = append(dst, `,"path":`...)
	dst = appendString(dst, e.Path)
	if e.Limit != "" {
		dst = append(dst, `,"limit":`...)
		dst = appendString(dst, e.Limit)
		dst = append(dst, `,"max":`...)
		dst = strconv.AppendInt(dst, e.Max, 10)
		dst = append(dst, `,"actual":`...)
		dst = strconv.AppendInt(dst, e.Actual, 10)
	}
	return append(dst, '}')
}

// AppendEnvelope appends the answer every interface gives, {"result": …} or
// {"error": …}, with no trailing newline. Exactly one of res and err is
// non-nil.
func AppendEnvelope(dst []byte, res *Result, err *Error) []byte {
	if err != nil {
		dst = append(dst, `{"error":`...)
		dst = err.AppendJSON(dst)
	} else {
		dst = append(dst, `{"result":`...)
		dst = res.AppendJSON(dst)
	}
	return append(dst, '}')
}

// ReadBody reads a request body from r, reading at most MaxInputBytes+1
// bytes: a larger body is limit_exceeded (actual = MaxInputBytes+1, since
// the rest is never read). A read failure is reported as invalid_input with
// the reader's message.
func ReadBody(r io.Reader) ([]byte, *Error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, invalidf("", "body: could not be read: %v", err)
	}
	if len(body) > MaxInputBytes {
		return nil, BodyTooLarge(int64(len(body)))
	}
	return body, nil
}

// BodyTooLarge is the limit_exceeded error for a body of actual bytes, over
// max_input_bytes. A reader that stops at the limit reports MaxInputBytes+1.
func BodyTooLarge(actual int64) *Error {
	return limitError("", LimitInputBytes, MaxInputBytes, actual, "bytes")
}
