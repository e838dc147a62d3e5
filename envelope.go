package citecheck

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
