package annotation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

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

func TestStreamScanErrorCountsTheItemsHandedOn(t *testing.T) {
	n := StreamBatch + 10 // one whole batch is handed on; the ten gathered after it are not
	handed := 0
	err := newStreamChecker(t).Stream(context.Background(), NewScanner(strings.NewReader(streamInput(n, `{"id":`))), func(Item, *Report) error {
		handed++
		return nil
	})
	want := fmt.Sprintf("reading the annotations after %d items: ", StreamBatch)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want it to start %q", err, want)
	}
	if handed != StreamBatch {
		t.Fatalf("%d items handed on, want %d", handed, StreamBatch)
	}
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
