package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// destination is where `annotations` writes: standard output as it goes;
// or, with --fix or --output, a temporary file that becomes the output
// only once it is whole (commit), so that a run that fails part way
// writes nothing. With --output FILE the temporary file is in FILE's
// directory and is renamed over FILE (the input may be FILE: it has been
// read to its end by then; a symbolic link is followed to the file it
// names); without, it is copied to standard output.
type destination struct {
	io.Writer
	tmp       *os.File
	final     string // --output's FILE; "" for standard output
	stdout    io.Writer
	committed bool
}

func newDestination(output string, stdout io.Writer, fix bool) (*destination, error) {
	if output == "" && !fix {
		return &destination{Writer: stdout}, nil
	}
	dir := "" // the system's temporary directory, for standard output
	if output != "" {
		// A symbolic link is followed: the file it names is replaced, the
		// link kept.
		if real, err := filepath.EvalSymlinks(output); err == nil {
			output = real
		}
		dir = filepath.Dir(output)
	}
	tmp, err := os.CreateTemp(dir, ".citecheck-annotations-*")
	if err != nil {
		return nil, fmt.Errorf("--output: %v", err)
	}
	return &destination{Writer: tmp, tmp: tmp, final: output, stdout: stdout}, nil
}

// commit makes the whole output the output: copied to standard output, or
// synced to disk and renamed over FILE with FILE's permissions (0644 for
// a new file), then FILE's directory synced so that the rename lasts.
func (d *destination) commit() error {
	if d.tmp == nil {
		return nil
	}
	if d.final == "" {
		if _, err := d.tmp.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("writing the output: %w", err)
		}
		if _, err := io.Copy(d.stdout, d.tmp); err != nil {
			return fmt.Errorf("writing the output: %w", err)
		}
		return nil
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(d.final); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := d.tmp.Chmod(mode); err != nil {
		return fmt.Errorf("--output %s: %w", d.final, err)
	}
	if err := d.tmp.Sync(); err != nil {
		return fmt.Errorf("--output %s: %w", d.final, err)
	}
	if err := d.tmp.Close(); err != nil {
		return fmt.Errorf("--output %s: %w", d.final, err)
	}
	if err := os.Rename(d.tmp.Name(), d.final); err != nil {
		return fmt.Errorf("--output %s: %w", d.final, err)
	}
	d.committed = true
	if dir, err := os.Open(filepath.Dir(d.final)); err == nil {
		dir.Sync() // best effort: not every file system syncs a directory
		dir.Close()
	}
	return nil
}

// discard removes the temporary file unless it became FILE.
func (d *destination) discard() {
	if d.tmp == nil || d.committed {
		return
	}
	d.tmp.Close()
	os.Remove(d.tmp.Name())
}
