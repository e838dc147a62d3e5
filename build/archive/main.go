// Command archive packs the files of a release archive reproducibly, and
// writes the checksums file: build/release.sh runs it.
//
//	archive -o OUT.tar.gz|OUT.zip -mtime UNIX -dir DIR FILE...
//	archive -sums SHA256SUMS -dir DIR FILE...
//
// The archive holds the FILEs of DIR, in the order given, under a folder
// named for OUT (its name without .tar.gz or .zip), each dated -mtime,
// owned by 0:0, mode 0755 when the file is executable for its owner and
// 0644 otherwise: nothing of the machine it was packed on (user, umask,
// clock, file system order) reaches the bytes, so the same files give the
// same archive. gzip's header carries no name and no time.
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "", "the archive to write: a .tar.gz or a .zip")
	sums := flag.String("sums", "", "write the SHA-256 of each FILE to this file instead, as sha256sum prints them")
	mtime := flag.Int64("mtime", 315532800, "the modification time of every entry, in seconds since 1970")
	dir := flag.String("dir", ".", "the folder the FILEs are in")
	flag.Parse()
	var err error
	switch {
	case (*out == "") == (*sums == ""):
		err = errors.New("give one of -o and -sums")
	case flag.NArg() == 0:
		err = errors.New("no FILE")
	case *sums != "":
		err = writeSums(*sums, *dir, flag.Args())
	default:
		err = writeArchive(*out, time.Unix(*mtime, 0).UTC(), *dir, flag.Args())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "archive:", err)
		os.Exit(1)
	}
}

// entry is one file of an archive.
type entry struct {
	name string // in the archive, under the folder
	mode int64
	data []byte
}

func readEntries(dir string, files []string) ([]entry, error) {
	var es []entry
	for _, f := range files {
		p := filepath.Join(dir, f)
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		mode := int64(0o644)
		if st.Mode()&0o100 != 0 || strings.HasSuffix(f, ".exe") {
			mode = 0o755
		}
		es = append(es, entry{filepath.ToSlash(f), mode, data})
	}
	return es, nil
}

func writeArchive(out string, mtime time.Time, dir string, files []string) error {
	es, err := readEntries(dir, files)
	if err != nil {
		return err
	}
	base := filepath.Base(out)
	var pack func(io.Writer, string, time.Time, []entry) error
	switch {
	case strings.HasSuffix(base, ".tar.gz"):
		pack = packTarGz
	case strings.HasSuffix(base, ".zip"):
		pack = packZip
	default:
		return fmt.Errorf("%s: want a .tar.gz or a .zip", out)
	}
	folder := strings.TrimSuffix(strings.TrimSuffix(base, ".tar.gz"), ".zip")
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := pack(f, folder, mtime, es); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", out, err)
	}
	return f.Close()
}

// packTarGz writes a ustar archive, gzipped at the best compression.
func packTarGz(w io.Writer, folder string, mtime time.Time, es []entry) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	hdr := func(name string, typ byte, mode, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Size: size, ModTime: mtime, Format: tar.FormatUSTAR}
	}
	if err := tw.WriteHeader(hdr(folder+"/", tar.TypeDir, 0o755, 0)); err != nil {
		return err
	}
	for _, e := range es {
		if err := tw.WriteHeader(hdr(folder+"/"+e.name, tar.TypeReg, e.mode, int64(len(e.data)))); err != nil {
			return err
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// packZip writes a zip archive, deflated at the best compression.
func packZip(w io.Writer, folder string, mtime time.Time, es []entry) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	dh := &zip.FileHeader{Name: folder + "/", Modified: mtime}
	dh.SetMode(os.ModeDir | 0o755)
	if _, err := zw.CreateHeader(dh); err != nil {
		return err
	}
	for _, e := range es {
		h := &zip.FileHeader{Name: folder + "/" + e.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(os.FileMode(e.mode))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(e.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeSums writes "HASH  FILE" lines, in the order given.
func writeSums(out, dir string, files []string) error {
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), f)
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}
