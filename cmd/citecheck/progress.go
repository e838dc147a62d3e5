package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// progress draws one self-overwriting line on a terminal's stderr: requests
// done, their rate, and, when the input's size is known, the share of it
// read and the time left. It redraws at most every progressEvery.
type progress struct {
	w     io.Writer
	on    bool
	size  int64
	start time.Time
	last  time.Time
	drawn bool
}

func (p *progress) update(done int, consumed int64) {
	if !p.on {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start)
	line := fmt.Sprintf("%s requests  %s/s", count(done), count(rate(done, elapsed)))
	if p.size > 0 {
		frac := min(float64(consumed)/float64(p.size), 1)
		const barCols = 24
		fill := int(frac * barCols)
		bar := strings.Repeat("=", fill) + strings.Repeat(" ", barCols-fill)
		if fill < barCols {
			bar = bar[:fill] + ">" + bar[fill+1:]
		}
		eta := "--:--"
		if frac > 0 {
			left := time.Duration(float64(elapsed) * (1 - frac) / frac)
			eta = clock(left)
		}
		line = fmt.Sprintf("[%s] %3d%%  %s  ETA %s", bar, int(frac*100), line, eta)
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	p.drawn = true
}

// clear erases the progress line, so that what follows starts clean.
func (p *progress) clear() {
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// clearingWriter erases the progress line before writing to a stdout that
// shares the terminal, so that answers never land after a half line. The
// next update redraws it.
type clearingWriter struct {
	w io.Writer
	p *progress
}

func (c clearingWriter) Write(b []byte) (int, error) {
	c.p.clear()
	return c.w.Write(b)
}

func rate(n int, d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(float64(n) / d.Seconds())
}

// count writes n with thousands separators: 12,345.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
