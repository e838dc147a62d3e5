package citecheck

import (
	"strconv"

	"github.com/citecheck/citecheck/internal/jsonenc"
)

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

// AppendEnvelope appends the answer every interface gives, {"result": …} or
// {"error": …}, with no trailing newline. Exactly one of res and err is
// non-nil; err is written as [AsError] makes it (an err that holds a nil
// *Error is no error).
func AppendEnvelope(dst []byte, res *Result, err error) []byte {
	if e := AsError(err); e != nil {
		dst = append(dst, `{"error":`...)
		dst = e.AppendJSON(dst)
	} else {
		dst = append(dst, `{"result":`...)
		dst = res.AppendJSON(dst)
	}
	return append(dst, '}')
}
