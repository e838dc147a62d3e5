package main

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f, read-only, with every page
// already in place (MAP_POPULATE: the kernel maps the page cache's pages
// in the one call; the file is read in first if it is not cached). It
// reports false when the file cannot be mapped (then it is read).
func mapFile(f *os.File, size int) ([]byte, func(), bool) {
	b, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return nil, nil, false
	}
	return b, func() { syscall.Munmap(b) }, true
}
