package citecheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// The functions that may fail return error, and on success a nil one: not
// a non-nil error holding a nil *Error, which `err != nil` would take for
// a failure.
func TestSucceedingCallsReturnANilError(t *testing.T) {
	body := validBody()
	ctx := context.Background()
	for name, err := range map[string]error{
		"Decode":            second(Decode(body)),
		"DecodeWith":        second(DecodeWith(body, DefaultLimits())),
		"DecodeShared":      second(DecodeShared(body, DefaultLimits())),
		"ReadBody":          second(ReadBody(bytes.NewReader(body))),
		"Run":               second(Run(body)),
		"RunContext":        second(RunContext(ctx, body)),
		"RunExplain":        second(RunExplain(body)),
		"RunExplainContext": second(RunExplainContext(ctx, body)),
		"LookupTool":        LookupTool(ToolID, ToolVersion),
	} {
		if err != nil {
			t.Errorf("%s of a valid body: error %#v, want nil", name, err)
		}
	}
	if _, err := Decode([]byte(`{}`)); AsError(err) == nil || AsError(err).Code != CodeInvalidInput {
		t.Errorf("Decode({}) = %v, want an invalid_input *Error", err)
	}
}

// validBody is a request whose one citation holds.
func validBody() []byte {
	return []byte(testkit.Request{Sources: []testkit.Source{testkit.NewSource("s", "v1", "abc")},
		Citations: []testkit.Citation{testkit.PositionCitation("c", "s", "v1", 0, 1, "a")}}.Body())
}

func second[T any](_ T, err error) error { return err }

// AsError finds the *Error in an error, and makes any other error an
// internal one.
func TestAsErrorIsErrorsAsWithAnInternalFallback(t *testing.T) {
	e := &Error{Code: CodeInvalidInput, Message: "m"}
	var none *Error
	for _, tc := range []struct {
		name string
		in   error
		want *Error
	}{
		{"nil", nil, nil},
		{"a nil *Error", none, nil},
		{"an *Error", e, e},
		{"a wrapped *Error", fmt.Errorf("wrapped: %w", e), e},
		{"another error", errors.New("disk full"), &Error{Code: CodeInternal, Message: "disk full"}},
	} {
		got := AsError(tc.in)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("AsError(%s) = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// An envelope written with an error that holds a nil *Error is the
// result's: a caller that passes its *Error variable gets no error object.
func TestEnvelopeTakesANilErrorForNone(t *testing.T) {
	res, err := Run(validBody())
	if err != nil {
		t.Fatal(err)
	}
	var none *Error
	if got, want := AppendEnvelope(nil, res, none), AppendEnvelope(nil, res, nil); !bytes.Equal(got, want) {
		t.Errorf("with a nil *Error: %s, want %s", got, want)
	}
	all := CheckAll(mustDecode(t, string(validBody())))
	if got := AppendAllEnvelope(nil, all, none); !bytes.HasPrefix(got, []byte(`{"all":`)) {
		t.Errorf("AppendAllEnvelope with a nil *Error: %s", got)
	}
}
