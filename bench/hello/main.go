// Command hello is the Go hello world that bench/classes.sh times beside
// `citecheck run`: the start-up of any Go program, the floor of ours.
package main

import "os"

func main() { os.Stdout.WriteString("hello, world\n") }
