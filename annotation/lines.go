package annotation

import (
	"context"
	"io"
	"strconv"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
)

// LinesChunk is about how many bytes Lines gathers before handing them
// on: large enough that the receiver is called rarely, small enough that
// the lines of a large export are never all held.
const LinesChunk = 64 << 10

// Lines reads an export from r and checks it against sources, handing
// put the JSON lines `citecheck annotations` writes for it, in input
// order, in pieces of whole lines of about LinesChunk bytes (put copies
// what it keeps: the buffer is reused). It is what the packages for other
// languages give for an export held in memory (js/, python/). When the
// run cannot finish (sources with the same IRI, an export that is not
// JSON) msg is the message the CLI writes after "citecheck: " on standard
// error, the lines handed on before it being what the CLI prints before
// it; else "". notices is a JSON array of what the CLI's summary says
// beside the counts (see appendNotices), [] when it says nothing more.
//
// Memory: Stream's (one batch of StreamBatch annotations, and the
// scanner's buffer, which holds the longest token), the sources, the IRIs
// not supplied, and LinesChunk bytes plus the longest line; neither the
// export nor its lines are ever held whole. Cost: Checker.Stream's.
func Lines(ctx context.Context, r io.Reader, sources []Source, put func([]byte)) (msg string, notices []byte) {
	c, err := NewChecker(sources, citecheck.DefaultLimits())
	if err != nil {
		return err.Error(), []byte("[]")
	}
	var lines []byte
	missing := Missing{}
	sc := NewScanner(r)
	err = c.Stream(ctx, sc, func(it Item, rep *Report) error {
		if rep != nil && rep.Err == nil {
			missing.Add(rep)
		}
		lines = AppendJSONLine(lines, it, rep)
		if len(lines) >= LinesChunk {
			put(lines)
			lines = lines[:0]
		}
		return nil
	})
	if len(lines) > 0 {
		put(lines)
	}
	notices = appendNotices(nil, sc, missing)
	if err != nil {
		return err.Error(), notices
	}
	return "", notices
}

// appendNotices appends the JSON array of the notices the CLI's summary
// gives beside the counts, each {"kind", "message", …}, the message in
// the CLI's words:
//
//   - one_page: the export is one page of a collection (next, total and
//     here, as Part has them, when known);
//   - targets_name_no_source: targets that name no source, and the key
//     that gives their text (sources[""]);
//   - sources_not_supplied: the IRIs named and not supplied, each with
//     how many targets name it (every one, in IRI order; the message
//     names the first MaxMissingNamed).
func appendNotices(dst []byte, sc *Scanner, missing Missing) []byte {
	dst = append(dst, '[')
	notice := func(kind, message string) {
		if len(dst) > 1 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"kind":"`+kind+`","message":`...)
		dst = jsonenc.AppendString(dst, message)
	}
	if p, ok := sc.Part(); ok {
		notice("one_page", p.Words())
		if p.Next != "" {
			dst = jsonenc.AppendString(append(dst, `,"next":`...), p.Next)
		}
		if p.Total > 0 {
			dst = append(dst, `,"total":`+strconv.FormatInt(p.Total, 10)+`,"here":`+strconv.Itoa(p.Here)...)
		}
		dst = append(dst, '}')
	}
	unnamed, named := missing.Words(`sources[""]`)
	if unnamed != "" {
		notice("targets_name_no_source", unnamed)
		dst = append(dst, `,"targets":`+strconv.Itoa(missing[""])+`}`...)
	}
	if named != "" {
		notice("sources_not_supplied", named)
		dst = append(dst, `,"sources":[`...)
		for i, iri := range missing.IRIs() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonenc.AppendString(append(dst, `{"iri":`...), iri)
			dst = append(dst, `,"targets":`+strconv.Itoa(missing[iri])+`}`...)
		}
		dst = append(dst, "]}"...)
	}
	return append(dst, ']')
}
