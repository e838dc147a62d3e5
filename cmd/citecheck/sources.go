package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/utext"
	"github.com/citecheck/citecheck/quotes"
)

// How `annotations` and `quotes` read the sources they check against:
// --source ID=FILE (repeatable) and --sources MANIFEST, each file read as
// validated UTF-8 under --max-source-size, an HTML file as its body's
// textContent; a UTF-8 byte order mark at a file's start is not text.

// sourceFile is one source named on the command line or in a manifest.
type sourceFile struct {
	id, file, version string
	text              string
	// err, when set, says why the file could not be read (text is then
	// empty); what that means is the command's to say.
	err *citecheck.Error
}

// loadSourceFiles reads the --source files (ID=FILE, what names a source
// being idName in messages: "IRI", "ID") and the manifest's, in that
// order. Every file is read as UTF-8 exactly: nothing is repaired or
// normalized. A file that cannot be read (missing, over maxBytes, not
// UTF-8, HTML nested too deep) is a sourceFile with its err set. The
// error returned is the command line's or the manifest's.
func loadSourceFiles(specs []string, idName, manifest string, asHTML bool, maxBytes int64) ([]sourceFile, error) {
	var entries []sourceFile
	for _, s := range specs {
		// An IRI may hold '=' (a query): the file name is after the last one.
		i := strings.LastIndex(s, "=")
		if i <= 0 || i == len(s)-1 {
			return nil, fmt.Errorf("--source %q: want %s=FILE", s, idName)
		}
		entries = append(entries, sourceFile{id: s[:i], file: s[i+1:]})
	}
	if manifest != "" {
		m, err := readManifest(manifest)
		if err != nil {
			return nil, err
		}
		for _, e := range m {
			entries = append(entries, sourceFile{id: e[0], file: e[1], version: e[2]})
		}
	}
	for i := range entries {
		e := &entries[i]
		e.text, e.err = readSourceText(e.file, asHTML, maxBytes)
	}
	return entries, nil
}

// defaultMaxSourceBytes is --max-source-size' default, the bound the
// packages' quotes calls meet too (quotes.MaxSourceBytes).
const defaultMaxSourceBytes = quotes.MaxSourceBytes

// readSourceText reads a source file as UTF-8 (see readText), and an HTML
// file (by its extension, or all with --html) as its body's textContent.
// A regular file larger than maxBytes is refused before it is read.
func readSourceText(file string, asHTML bool, maxBytes int64) (string, *citecheck.Error) {
	fail := func(e *citecheck.Error) (string, *citecheck.Error) {
		e.Message = file + ": " + e.Message
		return "", e
	}
	f, err := os.Open(file)
	if err != nil {
		return fail(&citecheck.Error{Code: citecheck.CodeInternal, Message: errors.Unwrap(err).Error()})
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return fail(&citecheck.Error{Code: citecheck.CodeInvalidInput, Message: "a folder, not a file"})
	} else if err == nil && fi.Mode().IsRegular() {
		if size = fi.Size(); size > maxBytes {
			return fail(overSourceBound(maxBytes))
		}
	}
	b, e := readText(f, size, maxBytes)
	if e != nil {
		return fail(e)
	}
	if !isHTML(file, asHTML) {
		// A byte order mark says how the file is encoded; it is not text,
		// as the HTML reader holds too, so offsets count from after it.
		return string(bytes.TrimPrefix(b, []byte("\uFEFF"))), nil
	}
	text, err := htmlBodyText(b)
	if err != nil {
		return fail(&citecheck.Error{Code: citecheck.CodeInvalidInput, Message: err.Error()})
	}
	return text, nil
}

func overSourceBound(maxBytes int64) *citecheck.Error {
	return &citecheck.Error{Code: citecheck.CodeLimitExceeded, Message: fmt.Sprintf("larger than --max-source-size (%s)", byteSize{&maxBytes})}
}

// readText reads r to its end as UTF-8, validating each read as it comes:
// it reads at most maxBytes+1 bytes (limit_exceeded past maxBytes), and
// stops at the first byte that is not UTF-8 (invalid_input naming it), so
// that an endless or binary source is never read whole. size is r's
// length when known (-1 otherwise), to allocate once. Cost: linear in the
// bytes read; memory, those bytes (the buffer doubles, never past the
// bound).
func readText(r io.Reader, size, maxBytes int64) ([]byte, *citecheck.Error) {
	if size < 0 {
		size = 64 << 10
	} else {
		size++ // room to see the end
	}
	b := make([]byte, 0, min(size, maxBytes+1))
	r = io.LimitReader(r, maxBytes+1)
	valid := 0 // b[:valid] is checked UTF-8; the rest may be a rune cut by the read
	for {
		if len(b) == cap(b) { // doubling, but never past the bound
			b = slices.Grow(b, int(min(int64(len(b)), maxBytes+1-int64(len(b)))))
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		eof := err == io.EOF
		if err != nil && !eof {
			return nil, &citecheck.Error{Code: citecheck.CodeInternal, Message: fmt.Sprintf("reading: %v", err)}
		}
		if int64(len(b)) > maxBytes {
			return nil, overSourceBound(maxBytes)
		}
		v, bad := validPrefix(b[valid:], eof)
		valid += v
		if bad {
			return nil, &citecheck.Error{Code: citecheck.CodeInvalidInput, Message: fmt.Sprintf("not UTF-8: invalid byte 0x%02X at byte offset %d", b[valid], valid)}
		}
		if eof {
			return b, nil
		}
	}
}

// validPrefix returns how many bytes of b are whole valid UTF-8 runes,
// and whether the byte after them is invalid (rather than the start of a
// rune the next read completes; at eof, nothing is to come).
func validPrefix(b []byte, eof bool) (int, bool) {
	cut := len(b)
	if !eof { // leave a rune the read may have cut for the next round
		for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					cut = i
				}
				break
			}
		}
	}
	if utf8.Valid(b[:cut]) {
		return cut, false
	}
	i := utext.InvalidAt(b[:cut])
	return i, true
}

// isHTML reports whether the source file is read as HTML: by its
// extension, or every one with --html.
func isHTML(file string, asHTML bool) bool {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".html", ".htm":
		return true
	}
	return asHTML
}

// readManifest reads a sources manifest: a JSON array of {"iri", "file",
// "version"} objects, or TSV lines IRI, file and an optional version
// (blank lines and lines starting with # are skipped). Files are relative
// to the manifest's directory. It returns (iri, file, version) triples.
func readManifest(name string) ([][3]string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(name)
	rel := func(f string) string {
		if filepath.IsAbs(f) {
			return f
		}
		return filepath.Join(dir, f)
	}
	var out [][3]string
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		var items []struct {
			IRI     string `json:"iri"`
			File    string `json:"file"`
			Version string `json:"version"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&items); err != nil {
			return nil, fmt.Errorf("manifest %s: %v", name, err)
		}
		for i, it := range items {
			if it.IRI == "" || it.File == "" {
				return nil, fmt.Errorf("manifest %s: item %d needs \"iri\" and \"file\"", name, i)
			}
			out = append(out, [3]string{it.IRI, rel(it.File), it.Version})
		}
		return out, nil
	}
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 2 || len(f) > 3 || f[0] == "" || f[1] == "" {
			return nil, fmt.Errorf("manifest %s: line %d: want IRI<TAB>FILE[<TAB>VERSION]", name, n+1)
		}
		f = append(f, "")
		out = append(out, [3]string{f[0], rel(f[1]), f[2]})
	}
	return out, nil
}
