// Command native times the engine in-process on request bodies, as the
// Python benchmark (bench/python.py) sets it beside citecheck called from
// Python: for each file named, the fastest of -runs runs of citecheck.Run
// (Decode + Check, the execute route's work without HTTP), each run
// repeating it until -min has passed. It prints one JSON object per file:
// {"file", "ns"} (nanoseconds per Run).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/citecheck/citecheck"
)

func main() {
	runs := flag.Int("runs", 7, "runs per file; the fastest counts")
	least := flag.Duration("min", 200*time.Millisecond, "how long each run repeats the check")
	flag.Parse()
	for _, name := range flag.Args() {
		body, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		best := time.Duration(1<<63 - 1)
		for range *runs {
			n, start := 0, time.Now()
			for time.Since(start) < *least {
				if _, err := citecheck.Run(body); err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
					os.Exit(2)
				}
				n++
			}
			best = min(best, time.Since(start)/time.Duration(n))
		}
		line, _ := json.Marshal(map[string]any{"file": name, "ns": best.Nanoseconds()})
		fmt.Println(string(line))
	}
}
