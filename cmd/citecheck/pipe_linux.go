package main

import (
	"io"
	"os"
	"syscall"
)

// widenPipes asks the kernel for pipes of 1 MiB (the unprivileged most,
// /proc/sys/fs/pipe-max-size, by default) under `citecheck pipe`'s
// standard input and output, so that a body of up to max_input_bytes
// crosses in one write and one read instead of sixteen of 64 KiB, each
// a wake-up of the other side. Streams that are not pipes, or a smaller
// maximum, leave them as they are.
func widenPipes(stdin io.Reader, stdout io.Writer) {
	const setPipeSize = 1031 // F_SETPIPE_SZ
	for _, s := range []any{stdin, stdout} {
		if f, ok := s.(*os.File); ok {
			syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), setPipeSize, 1<<20)
		}
	}
}

// mapShared maps size bytes of the memory file fd, read-only and shared,
// so that what the caller writes there is what the pipe reads; unmap
// lets it go.
func mapShared(fd, size int) (b []byte, unmap func(), err error) {
	b, err = syscall.Mmap(fd, 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}
