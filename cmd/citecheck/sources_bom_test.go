package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A UTF-8 byte order mark at the start of a source file is not text
// (spec §5.13): offsets count from the first character an editor shows.
// A mark anywhere else is text, kept as it is.
func TestASourceFilesByteOrderMarkIsNotText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ name, content, want string }{
		{"a mark at the start is dropped", "\uFEFFCall me Ishmael.", "Call me Ishmael."},
		{"a mark inside is kept", "Call\uFEFF me", "Call\uFEFF me"},
		{"only one mark is dropped", "\uFEFF\uFEFFx", "\uFEFFx"},
		{"an HTML file's too", "\uFEFF<p>Call me</p>", "Call me"},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "s.txt"
			if c.content[len(c.content)-1] == '>' {
				name = "s.html"
			}
			f := filepath.Join(dir, c.name+name)
			if err := os.WriteFile(f, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readSourceText(f, false, 1<<20)
			if err != nil || got != c.want {
				t.Fatalf("%q, %v; want %q", got, err, c.want)
			}
		})
	}
}
