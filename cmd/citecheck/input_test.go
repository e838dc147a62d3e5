package main

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

// bigBody is a request of about n bytes whose citations hold and fail,
// large enough that --input maps it rather than reads it.
func bigBody(n int) []byte {
	c := testkit.NewCorpus(11)
	text := c.Prose(n)
	src := testkit.NewSource("big", "v1", text)
	rng := testkit.NewRand(12)
	req := testkit.Request{Sources: []testkit.Source{src}}
	for i := range 8 {
		req.Citations = append(req.Citations, testkit.PickSpan(rng, src, "p"+string(rune('0'+i)), [2]int{20, 80}))
		req.Citations = append(req.Citations, testkit.PickAnchor(rng, src, "q"+string(rune('0'+i)), testkit.AnchorShape{Exact: [2]int{10, 40}, Prefix: [2]int{0, 20}, Suffix: [2]int{0, 20}}))
	}
	req.Citations = append(req.Citations, testkit.QuoteCitation("missing", "big", "v1", "no such words here"))
	return req.Body()
}

// Each way --input brings a body in (mapped, read at its known size,
// streamed through ReadBody) gives the body's bytes exactly, at every size
// around the mapping threshold and the limit.
func TestInputEveryWayOfReadingGivesTheBodyAsIs(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, mapMinBytes - 1, mapMinBytes, mapMinBytes + 1, 300_000, citecheck.MaxInputBytes} {
		body := bytes.Repeat([]byte("é x\n"), n/5+1)[:n]
		name := writeInput(t, string(body))
		in, e := readInput(name, nil)
		if e != nil {
			t.Fatalf("%d bytes: %v", n, e)
		}
		if wantMapped := n >= mapMinBytes && runtime.GOOS == "linux"; (in.unmap != nil) != wantMapped {
			t.Errorf("%d bytes: mapped %v, want %v", n, in.unmap != nil, wantMapped)
		}
		in.use(nil, nil, func(got []byte) int {
			if !bytes.Equal(got, body) {
				t.Errorf("%d bytes: the body read differs", n)
			}
			return 0
		})
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sized, e := readSized(f, n)
		f.Close()
		if e != nil || !bytes.Equal(sized.body, body) {
			t.Errorf("%d bytes: readSized: %v, equal %v", n, e, e == nil && bytes.Equal(sized.body, body))
		}
	}
}

// A file that grew after its size was taken is read to its end; one over
// max_input_bytes gets ReadBody's limit_exceeded, whatever the reading.
func TestInputReadsAGrownFileOnAndKeepsTheLimit(t *testing.T) {
	t.Parallel()
	body := bigBody(100_000)
	name := writeInput(t, string(body))
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, e := readSized(f, len(body)-1000) // the size taken before the file grew
	if e != nil || !bytes.Equal(in.body, body) {
		t.Fatalf("grown file: %v, equal %v", e, e == nil && bytes.Equal(in.body, body))
	}

	over := writeInput(t, strings.Repeat(" ", citecheck.MaxInputBytes)+"{}")
	got := runCLI(t, nil, "run", citecheck.ToolID, citecheck.ToolVersion, "--input", over)
	want, code := libraryAnswer([]byte(strings.Repeat(" ", citecheck.MaxInputBytes) + "{}"))
	if got.code != code || got.stdout != want {
		t.Fatalf("over the limit: exit %d stdout %q; want %d %q", got.code, got.stdout, code, want)
	}
}

// A mapped body answers as the library does on the same bytes, in every
// output form that reads the body (the envelope, --all, --explain, --fix,
// the text report).
func TestInputMappedBodyAnswersAsTheLibrary(t *testing.T) {
	t.Parallel()
	body := bigBody(200_000)
	name := writeInput(t, string(body))
	in, _ := readInput(name, nil)
	if in.unmap == nil && runtime.GOOS == "linux" {
		t.Fatal("the body is not mapped: this test would not test the mapping")
	}
	in.use(nil, nil, func([]byte) int { return 0 })
	want, code := libraryAnswer(body)
	got := runCLI(t, nil, "run", citecheck.ToolID, citecheck.ToolVersion, "--input", name)
	if got.code != code || got.stdout != want {
		t.Fatalf("exit %d stdout %q\nwant %d %q", got.code, got.stdout, code, want)
	}
	for _, flags := range [][]string{{"--all"}, {"--explain"}, {"--fix"}, {"--format", "text"}} {
		args := append([]string{"run", citecheck.ToolID, citecheck.ToolVersion}, flags...)
		mapped := runCLI(t, nil, append(args, "--input", name)...)
		streamed := runCLI(t, bytes.NewReader(body), append(args, "--input", "-")...)
		if mapped != streamed {
			t.Errorf("%v: mapped answers %+v\nstreamed %+v", flags, mapped, streamed)
		}
	}
}

// A mapped file truncated while it is read is a read error (exit 2), not a
// crash: the fault on the vanished pages is answered as such.
func TestInputTruncatedWhileMappedIsAnErrorNotACrash(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the body is mapped on Linux only")
	}
	t.Parallel()
	body := bigBody(300_000)
	name := writeInput(t, string(body))
	in, e := readInput(name, nil)
	if e != nil || in.unmap == nil {
		t.Fatalf("not mapped: %v", e)
	}
	if err := os.Truncate(name, 0); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := in.use(&out, &errb, func(body []byte) int {
		res, e := citecheck.Run(body)
		return report(&out, &errb, res, citecheck.AsError(e))
	})
	if code != exitError || !strings.Contains(out.String(), `"code":"usage"`) || !strings.Contains(errb.String(), "truncated while it was read") {
		t.Fatalf("exit %d stdout %q stderr %q; want exit 2 and the read error", code, out.String(), errb.String())
	}
}

// A mapped file rewritten in place while its body is in use changes the
// texts under the check (they share the mapping): a panic then is the
// error it stands for. A panic with the file unchanged stays a panic.
func TestInputChangedWhileMappedIsAnErrorNotACrash(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the body is mapped on Linux only")
	}
	t.Parallel()
	for _, change := range []bool{true, false} {
		body := bigBody(300_000)
		name := writeInput(t, string(body))
		in, e := readInput(name, nil)
		if e != nil || in.unmap == nil {
			t.Fatalf("not mapped: %v", e)
		}
		var out, errb bytes.Buffer
		var code int
		panicked := func() (p bool) {
			defer func() { p = recover() != nil }()
			code = in.use(&out, &errb, func(body []byte) int {
				if change {
					f, err := os.OpenFile(name, os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					f.WriteAt([]byte("\xff"), 100) // invalid UTF-8 where the decoder saw text
					f.Close()
					os.Chtimes(name, time.Time{}, time.Now().Add(time.Hour)) // however coarse the clock
				}
				panic("what the check might do on bytes it was not given")
			})
			return false
		}()
		switch {
		case change && (panicked || code != exitError || !strings.Contains(errb.String(), "changed while it was read")):
			t.Fatalf("changed: panicked %v, exit %d, stderr %q; want exit 2 and the read error", panicked, code, errb.String())
		case !change && !panicked:
			t.Fatalf("unchanged: a panic of the check was answered (exit %d, stderr %q)", code, errb.String())
		}
	}
}
