// Command scanfloor is the floor that bench/classes.sh sets beside a whole
// citecheck run: the least any checker of a request body must do as a
// process. It starts, reads the body (the file named by its argument),
// looks at every byte once (UTF-8 validation, as decoding must) and prints
// one line. Its time is process start-up plus reading plus one pass at
// memory speed; a checker can only add to it.
package main

import (
	"bytes"
	"fmt"
	"os"
	"unicode/utf8"
)

func main() {
	body, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("{\"bytes\":%d,\"valid_utf8\":%v,\"quotes\":%d}\n", len(body), utf8.Valid(body), bytes.Count(body, []byte{'"'}))
}
