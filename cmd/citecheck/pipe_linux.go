package main

import (
	"errors"
	"fmt"
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

// mapShared maps the first size bytes of the memory file fd, read-only
// and shared, so that what the caller writes there is what the pipe
// reads; unmap lets it go. fd must be a regular file (a memfd is one) of
// at least size bytes. A caller that shrinks it afterwards makes reading
// the memory fault, which cmdPipe turns into a panic that fails that call
// (debug.SetPanicOnFault); the Python package seals its memfd against
// shrinking.
func mapShared(fd, size int) (b []byte, unmap func(), err error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, nil, errors.New("not an open file")
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size < int64(size) {
		return nil, nil, fmt.Errorf("not a memory file of at least %d bytes", size)
	}
	b, err = syscall.Mmap(fd, 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("could not be mapped (%v)", err)
	}
	return b, func() { syscall.Munmap(b) }, nil
}
