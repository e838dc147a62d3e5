package citecheck

import "syscall"

// threadCPU is the CPU time the calling thread has used, user and system,
// in nanoseconds, or -1 where that cannot be known. With the goroutine
// locked to its thread it is the decoding's own CPU: neither another
// process on a shared machine nor the garbage collector's background
// workers count in it (its assists do).
func threadCPU() int64 {
	const rusageThread = 1 // RUSAGE_THREAD, which package syscall does not name
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
