//go:build !linux

package citecheck

// threadCPU is unknown outside Linux (see threadcpu_linux_test.go).
func threadCPU() int64 { return -1 }
