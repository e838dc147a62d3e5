package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/citecheck/citecheck"
)

// fixed is one request with its fixes applied (--fix).
type fixed struct {
	body  []byte                      // the request with every fix applied; nil when refused
	err   *citecheck.Error            // the request was refused
	fixed int                         // citations that failed and have a fix
	still []citecheck.CitationOutcome // citations that fail and have none
}

// fixRequest explains body and applies its fixes: the one place both a
// single run and each line of a bulk run get their answer.
func fixRequest(body []byte) fixed {
	req, e := citecheck.Decode(body)
	if e != nil {
		return fixed{err: citecheck.AsError(e)}
	}
	ex := citecheck.Explain(req)
	out, err := citecheck.ApplyFixes(body, ex)
	if err != nil { // a decoded body always parses: a bug
		return fixed{err: &citecheck.Error{Code: citecheck.CodeInternal, Message: "applying the fixes: " + err.Error()}}
	}
	f := fixed{body: out}
	for k, o := range ex.All.Citations {
		switch {
		case ex.Citations[k].Fix != nil:
			f.fixed++
		case !o.Valid():
			f.still = append(f.still, o)
		}
	}
	return f
}

// runFix prints the request with every fix applied, byte for byte the
// input elsewhere, and says on stderr what was fixed and what still fails.
// Exit status: 0 when every citation holds after the fixes, 1 when some
// still fail, 2 when the request is refused (the error object is printed
// instead, as every mode of run prints it).
func runFix(body []byte, stdout, stderr io.Writer) int {
	f := fixRequest(body)
	if f.err != nil {
		return report(stdout, stderr, nil, f.err)
	}
	stdout.Write(f.body)
	const listed = 10
	var b strings.Builder
	fmt.Fprintf(&b, "citecheck: %d %s fixed", f.fixed, plural(f.fixed, "citation", "citations"))
	if len(f.still) == 0 {
		b.WriteString("; every citation holds\n")
		io.WriteString(stderr, b.String())
		return exitValid
	}
	fmt.Fprintf(&b, "; %d still %s:", len(f.still), plural(len(f.still), "fails", "fail"))
	for i, o := range f.still[:min(len(f.still), listed)] {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %d (%s) %s", o.CitationIndex, idForTerminal(o.CitationID), o.Reason)
	}
	if len(f.still) > listed {
		fmt.Fprintf(&b, ", … (run --explain for all)")
	}
	b.WriteByte('\n')
	io.WriteString(stderr, b.String())
	return exitFailed
}

// answerFix is answer for --fix --jsonl: the line with its fixes applied,
// into out; the counts go to the summary.
func answerFix(j *bulkJob, out *[]byte) {
	f := fixRequest(*j.body)
	if f.err != nil {
		*out = citecheck.AppendEnvelope(*out, nil, f.err)
	}
	*out = append(append(*out, f.body...), '\n')
	j.fixed = int32(f.fixed)
	switch {
	case f.err != nil:
		j.kind, j.code = kindError, f.err.Code
	case len(f.still) > 0:
		j.kind, j.reason = kindFailed, f.still[0].Reason
		for _, o := range f.still {
			j.failedBy[o.Reason]++
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
