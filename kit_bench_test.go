package citecheck

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// kitWorkloads are the request bodies of the peer benchmark kit that
// bench/kit.sh runs, in the order its tables use.
var kitWorkloads = []string{"rag_typical", "many_small", "unicode_heavy", "max_scan_benign", "adversarial_periodic", "adversarial_overlap"}

// BenchmarkKitWorkload times the engine on the kit's own bodies, so that its
// in-process figures (Check: after decoding, as the kit's peers report
// theirs) sit beside the peers' in one table. bench/kit.sh points
// CITECHECK_KIT_WORKLOADS at the kit's generated workloads; without it the
// benchmark skips.
func BenchmarkKitWorkload(b *testing.B) {
	dir := os.Getenv("CITECHECK_KIT_WORKLOADS")
	if dir == "" {
		b.Skip("CITECHECK_KIT_WORKLOADS is not set (bench/kit.sh sets it)")
	}
	for _, name := range kitWorkloads {
		body, err := os.ReadFile(filepath.Join(dir, name+".json"))
		if err != nil {
			b.Fatal(err)
		}
		req, cerr := Decode(body)
		if cerr != nil {
			b.Fatalf("%s: %s", name, AsError(cerr).Message)
		}
		b.Run(name+"/stage=check", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := Check(req); !res.Valid {
					b.Fatalf("%s fails: %s", name, res.Reason)
				}
			}
		})
		b.Run(name+"/stage=check_parallel", func(b *testing.B) {
			// What `citecheck run` does: CheckParallel on every core.
			b.ReportAllocs()
			for b.Loop() {
				if res := CheckParallel(req, runtime.GOMAXPROCS(0)); !res.Valid {
					b.Fatalf("%s fails: %s", name, res.Reason)
				}
			}
		})
		b.Run(name+"/stage=decode", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(body); err != nil {
					b.Fatal(AsError(err).Message)
				}
			}
		})
		b.Run(name+"/stage=run", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if res, err := Run(body); err != nil || !res.Valid {
					b.Fatalf("%s does not pass", name)
				}
			}
		})
	}
}
