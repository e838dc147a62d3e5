package testkit

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// encoderSample is a body with every kind of character an encoder may
// escape: each control character, DEL, '"', '\\', '/', Latin-1, the BMP's
// edges around the surrogates, astral code points, <, >, & and U+2028,
// in nested objects and arrays with integers and literals.
func encoderSample() []byte {
	var ctl strings.Builder
	for c := rune(0); c < 0x20; c++ {
		ctl.WriteRune(c)
	}
	text := ctl.String() + "\x7f\"\\/ café Straße ñ ¿ ÿ \u0100 \u07ff \u0800 \ud7ff \ue000 \uffff 中文 かな \U00010000 \U0001F600 \U0001F469\u200D\U0001F4BB \U0010FFFF <p>a&b</p> \u2028\u2029"
	return Request{
		Sources:   []Source{NewSource("s\"1", "v1", text), NewSource("", "", "")},
		Citations: []Citation{QuoteCitation("q", "s\"1", "v1", "café").WithPrefix("\t").WithClaimedStart(-7), {CitationID: "r", RawSelector: `"a":[true,false,null,[],{}]`}},
	}.Body()
}

// TestPythonDumpsIsPython: PythonDumps writes the bytes python3's
// json.dumps(json.loads(body)) writes.
func TestPythonDumpsIsPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	body := encoderSample()
	cmd := exec.Command(python, "-c", "import json,sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.buffer.read())))")
	cmd.Stdin = bytes.NewReader(body)
	want, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := PythonDumps(body); !bytes.Equal(got, want) {
		t.Errorf("PythonDumps differs from python3:\n got %s\nwant %s", got, want)
	}
}

// TestGoMarshalEscapesForHTML: GoMarshal is encoding/json's HTML-safe form.
func TestGoMarshalEscapesForHTML(t *testing.T) {
	got := string(GoMarshal(NewSource("s", "v", "<p>a&b</p>\u2028")))
	if want := `{"source_id":"s","version":"v","text":"\u003cp\u003ea\u0026b\u003c/p\u003e\u2028"}`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
