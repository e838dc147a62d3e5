package citecheck_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// docFiles are the Markdown pages whose links must resolve: the README, the
// guides and the behaviour statement in docs/, and the benchmark kit's
// README. contracts/ is left out: it is published as it is, and its links
// are the hosting site's routes, not files.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "bench/kit/README.md"}
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("docs/ has no Markdown pages")
	}
	return append(files, docs...)
}

var (
	fencedBlock = regexp.MustCompile("(?ms)^ {0,3}```.*?^ {0,3}```[ \t]*$")
	codeSpan    = regexp.MustCompile("`[^`\n]*`")
	inlineLink  = regexp.MustCompile(`\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	heading     = regexp.MustCompile(`(?m)^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$`)
	hasScheme   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// Every relative link of README.md and docs/ names a file or folder of the
// repository, never one outside it, and every #fragment names a heading of
// its page, so a fresh clone reads as it was written.
func TestDocsLinksResolveInsideTheRepository(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{} // page → its heading anchors
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		anchors[page] = headingAnchors(string(raw))
		return anchors[page]
	}
	for _, page := range docFiles(t) {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range linkTargets(string(raw)) {
			if hasScheme.MatchString(target) {
				continue // a web address: not a file of the repository
			}
			path, frag, _ := strings.Cut(target, "#")
			dest := page // a bare #fragment points into the page itself
			if path != "" {
				if strings.HasPrefix(path, "/") {
					t.Errorf("%s: link %q is absolute; use a path relative to the page", page, target)
					continue
				}
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
				abs, err := filepath.Abs(dest)
				if err != nil {
					t.Fatal(err)
				}
				if abs != root && !strings.HasPrefix(abs, root+string(filepath.Separator)) {
					t.Errorf("%s: link %q leaves the repository", page, target)
					continue
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q names nothing: %v", page, target, err)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link %q has a fragment into a page that is not Markdown", page, target)
				continue
			}
			if !anchorsOf(dest)[frag] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", page, target, dest, frag)
			}
		}
	}
}

// linkTargets returns the targets of the inline links of a Markdown page,
// leaving out what is inside code blocks and code spans (examples, not
// links).
func linkTargets(md string) []string {
	md = fencedBlock.ReplaceAllString(md, "")
	md = codeSpan.ReplaceAllString(md, "")
	var targets []string
	for _, m := range inlineLink.FindAllStringSubmatch(md, -1) {
		targets = append(targets, strings.Trim(m[1], "<>"))
	}
	return targets
}

// headingAnchors returns the anchors GitHub gives the page's headings: the
// heading's text, lower-cased, with every character but letters, digits,
// spaces, hyphens and underscores dropped and spaces turned into hyphens;
// a repeated anchor gets -1, -2, … in order.
func headingAnchors(md string) map[string]bool {
	md = fencedBlock.ReplaceAllString(md, "")
	seen := map[string]int{}
	anchors := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(md, -1) {
		text := inlineLink.ReplaceAllStringFunc(m[1], func(l string) string { return l[1:strings.Index(l, "](")] })
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// The link check itself: each kind of broken link is caught, each good one
// passes, so a passing TestDocsLinksResolveInsideTheRepository means
// something.
func TestDocsLinkCheckFindsWhatIsBroken(t *testing.T) {
	md := "# Top\n## Bulk runs: `--jsonl`\n## 2.5 Text is compared as it is\n## Top\n" +
		"[a](x.md) [b](<y.md>) [c](#top-1) `[not](a link)`\n```\n[nor](this)\n```\n"
	if got, want := strings.Join(linkTargets(md), " "), "x.md y.md #top-1"; got != want {
		t.Errorf("linkTargets = %q, want %q", got, want)
	}
	a := headingAnchors(md)
	for _, want := range []string{"top", "bulk-runs---jsonl", "25-text-is-compared-as-it-is", "top-1"} {
		if !a[want] {
			t.Errorf("no anchor %q in %v", want, a)
		}
	}
	if a["nor"] || a["top-2"] {
		t.Errorf("anchors from code or beyond the repeats: %v", a)
	}
}
