package annotation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/citecheck/citecheck"
)

// streamInput is n annotations on source "s" as JSON Lines, every third
// one not an annotation (an error item), then tail.
func streamInput(n int, tail string) string {
	var b strings.Builder
	for i := range n {
		if i%3 == 2 {
			b.WriteString("42\n")
			continue
		}
		fmt.Fprintf(&b, `{"id":"a%d","target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"fox"}}}`+"\n", i)
	}
	b.WriteString(tail)
	return b.String()
}

func newStreamChecker(t *testing.T) *Checker {
	t.Helper()
	c, err := NewChecker([]Source{{IRI: "s", Text: "the quick brown fox"}}, citecheck.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestStreamHandsOnEveryItemInOrder(t *testing.T) {
	for _, n := range []int{0, 1, StreamBatch - 1, StreamBatch, StreamBatch + 1, 2*StreamBatch + 5} {
		var got []int
		err := newStreamChecker(t).Stream(context.Background(), NewScanner(strings.NewReader(streamInput(n, ""))), func(it Item, r *Report) error {
			if (it.Err != nil) != (r == nil) {
				t.Fatalf("n=%d item %d: error %v with report %v", n, it.Index, it.Err, r)
			}
			if r != nil && r.Outcome != Anchored {
				t.Fatalf("n=%d item %d: %v", n, it.Index, r.Outcome)
			}
			got = append(got, it.Index)
			return nil
		})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for i, idx := range got {
			if idx != i {
				t.Fatalf("n=%d: item %d handed on as %d", n, i, idx)
			}
		}
		if len(got) != n {
			t.Fatalf("n=%d: %d items handed on", n, len(got))
		}
	}
}

// A truncated export loses nothing that was read before the break: every
// whole item is checked and handed on, then the error says how many were
// and where (byte, line) the input broke, for JSON Lines, an array and a
// search response, across batch boundaries, and for a reader that fails.
func TestTruncatedExportHandsOnEveryItemReadBeforeTheBreak(t *testing.T) {
	line := func(i int) string {
		return fmt.Sprintf(`{"id":"a%d","target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"fox"}}}`, i)
	}
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(line(i) + "\n")
		}
		return b.String()
	}
	arr := func(n int) string {
		var b strings.Builder
		b.WriteString("[\n")
		for i := range n {
			b.WriteString(line(i) + ",\n")
		}
		return b.String()
	}
	half := line(99)[:40]
	for _, c := range []struct {
		name  string
		input string
		whole int
		line  int
	}{
		{"JSON Lines: two whole lines, then half a third", lines(2) + half, 2, 3},
		{"JSON Lines: a batch and ten, then half a line", lines(StreamBatch+10) + half, StreamBatch + 10, StreamBatch + 11},
		{"JSON Lines: a broken line among whole ones", lines(2) + `{"id":` + "\n" + lines(1), 2, 5}, // the line after it is read as its id
		{"an array cut in an item", arr(2) + half, 2, 4},
		{"an array cut after an item", arr(3), 3, 5},
		{"a search response cut in a row", `{"total":3,"rows":[` + line(0) + "," + line(1) + "," + half, 2, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			err := newStreamChecker(t).Stream(context.Background(), NewScanner(strings.NewReader(c.input)), func(it Item, r *Report) error {
				if r == nil || r.Outcome != Anchored {
					t.Errorf("item %d: %v, %v", it.Index, r, it.Err)
				}
				got = append(got, it.Annotation.ID)
				return nil
			})
			if len(got) != c.whole {
				t.Fatalf("%d items handed on, want %d", len(got), c.whole)
			}
			for i, id := range got {
				if id != fmt.Sprintf("a%d", i) {
					t.Fatalf("item %d is %q", i, id)
				}
			}
			want := fmt.Sprintf("reading the annotations after %d items: input is not JSON at byte ", c.whole)
			if c.line != 1 && !strings.Contains(fmt.Sprint(err), "the input ends before") {
				t.Errorf("error %v: want it to say the input ended", err)
			}
			if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprintf("(line %d, value ", c.line)) {
				t.Fatalf("error %v, want it to start %q and name line %d", err, want, c.line)
			}
		})
	}
	t.Run("a reader that fails", func(t *testing.T) {
		broken := errors.New("disk gone")
		handed := 0
		in := io.MultiReader(strings.NewReader(lines(3)+half), iotest.ErrReader(broken))
		err := newStreamChecker(t).Stream(context.Background(), NewScanner(in), func(Item, *Report) error { handed++; return nil })
		if handed != 3 || !errors.Is(err, broken) || !strings.HasPrefix(err.Error(), "reading the annotations after 3 items: ") {
			t.Fatalf("%d handed on, error %v", handed, err)
		}
	})
}

func TestStreamStopsAtEachsError(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := newStreamChecker(t).Stream(context.Background(), NewScanner(strings.NewReader(streamInput(2*StreamBatch, ""))), func(Item, *Report) error {
		calls++
		if calls == 5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 5 {
		t.Fatalf("error %v after %d calls", err, calls)
	}
}

func TestStreamStopsWhenTheContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := newStreamChecker(t).Stream(ctx, NewScanner(strings.NewReader(streamInput(3, ""))), func(Item, *Report) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
}

func TestAppendJSONLineIsTheReportOrTheErrorAndANewline(t *testing.T) {
	var lines []string
	err := newStreamChecker(t).Stream(context.Background(), NewScanner(strings.NewReader(streamInput(3, ""))), func(it Item, r *Report) error {
		line := string(AppendJSONLine(nil, it, r))
		want := ""
		if r == nil {
			want = string(AppendError(nil, it)) + "\n"
		} else {
			want = string(r.AppendJSON(nil, it.Index)) + "\n"
		}
		if line != want {
			t.Errorf("item %d: %q, want %q", it.Index, line, want)
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil || len(lines) != 3 || !strings.Contains(lines[2], `"outcome":"error"`) {
		t.Fatalf("%v: %q", err, lines)
	}
}
