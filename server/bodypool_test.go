package server

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

// TestBodyBufferIsTheSmallestClassThatHoldsTheBody: a body of n bytes gets
// a buffer of the smallest class of at least n bytes, at most a quarter
// over n (or the 4 KiB floor), and the largest class is max_input_bytes.
func TestBodyBufferIsTheSmallestClassThatHoldsTheBody(t *testing.T) {
	t.Parallel()
	// Every class's capacity, from the classes of every size up to the limit.
	sizes := make([]int, bodyClasses)
	for n := 1; n <= citecheck.MaxInputBytes; n++ {
		c, size := bodyClassOf(n)
		if c < 0 || c >= bodyClasses {
			t.Fatalf("bodyClassOf(%d) = class %d, outside [0, %d)", n, c, bodyClasses)
		}
		if sizes[c] == 0 {
			sizes[c] = size
		} else if sizes[c] != size {
			t.Fatalf("class %d has sizes %d and %d", c, sizes[c], size)
		}
		if size < n || size > max(bodyClassMin, n+n/4) {
			t.Fatalf("bodyClassOf(%d) = size %d, want in [%d, max(4 KiB, n·5/4)]", n, size, n)
		}
		if c > 0 && sizes[c-1] >= n {
			t.Fatalf("bodyClassOf(%d) = class %d, but class %d (%d bytes) holds it", n, c, c-1, sizes[c-1])
		}
	}
	if sizes[bodyClasses-1] != citecheck.MaxInputBytes {
		t.Fatalf("largest class is %d bytes, want max_input_bytes %d", sizes[bodyClasses-1], citecheck.MaxInputBytes)
	}
	var p bodyBuffers
	for _, n := range []int{1, bodyClassMin, bodyClassMin + 1, 100_000, citecheck.MaxInputBytes} {
		b := p.get(n)
		if _, size := bodyClassOf(n); len(b) != n || cap(b) != size {
			t.Fatalf("get(%d): len %d cap %d, want len %d cap %d", n, len(b), cap(b), n, size)
		}
		p.put(b)
	}
}

// TestRecycledBodyBuffersAnswerEachBodyAlone: bodies read one after another
// into the same recycled buffers (all in the 56–64 KiB class: longer then
// shorter, valid, failing and refused) each get the answer the in-process
// run gives for that body alone, never one shaped by a body before it.
func TestRecycledBodyBuffersAnswerEachBodyAlone(t *testing.T) {
	t.Parallel()
	corpus := testkit.NewCorpus(11)
	corpus.ASCII = true // byte offsets are code points
	long := testkit.NewSource("doc", "v1", corpus.Prose(60_000))
	short := testkit.NewSource("doc", "v1", long.Text[:58_000])
	var valid, failing testkit.Request
	valid.Sources = []testkit.Source{long}
	valid.Citations = []testkit.Citation{testkit.PositionCitation("c1", "doc", "v1", 59_000, 59_050, long.Text[59_000:59_050])}
	failing.Sources = []testkit.Source{short}
	failing.Citations = []testkit.Citation{testkit.PositionCitation("c1", "doc", "v1", 57_000, 57_050, long.Text[57_000:57_049]+"#")}
	validBody, failingBody := valid.Body(), failing.Body()
	class64, _ := bodyClassOf(64 << 10)
	for _, b := range [][]byte{validBody, failingBody} {
		if c, _ := bodyClassOf(len(b)); c != class64 {
			t.Fatalf("a body of %d bytes is in class %d, not the 56–64 KiB one", len(b), c)
		}
	}
	bodies := [][]byte{
		validBody,
		failingBody,
		validBody[:len(validBody)-40],         // cut short: invalid JSON where the longer body had more
		append(bytes.Clone(failingBody), '{'), // trailing garbage
		validBody,
	}
	s := New(Config{})
	for round := range 3 {
		for i, body := range bodies {
			req := httptest.NewRequest("POST", executePath, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			want, _, e := inProcess(body)
			if wantStatus := answerStatus(e); w.Code != wantStatus || !bytes.Equal(w.Body.Bytes(), want) {
				t.Fatalf("round %d, body %d: %d %s\nwant %d %s", round, i, w.Code, w.Body.Bytes(), wantStatus, want)
			}
		}
	}
}
