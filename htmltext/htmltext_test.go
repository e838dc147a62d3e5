package htmltext

import (
	"fmt"
	"testing"
)

// rules are the textContent rules, each a small document and the text a
// browser gives for it. TestBodyTextMatchesChromium runs the same inputs
// through headless Chromium, so each expectation is checked against a
// browser too.
var rules = []struct {
	name, html, want string
}{
	{"text/joined in tree order across elements", `<p>Hello, <b>annotated</b> world!</p><p>Two</p>`, "Hello, annotated world!Two"},
	{"text/character references are decoded", `<p>a &amp; b &lt;c&gt; &eacute; &#x1F600; &nbsp;.</p>`, "a & b <c> é 😀 \u00a0."},
	{"text/comments are not text", `<p>a<!-- hidden -->b</p>`, "ab"},
	{"text/the head is outside the body", `<html><head><title>T</title><style>h{}</style></head><body>B</body></html>`, "B"},
	{"text/script and style text in the body is text", `<body>a<script>var x = "<p>";</script><style>p{}</style>b</body>`, `avar x = "<p>";p{}b`},
	{"text/noscript holds raw text with scripting on", `<body>a<noscript><p>no js</p></noscript>b</body>`, "a<p>no js</p>b"},
	{"text/a template's content is not in the tree", `<body>a<template><p>tpl</p></template>b</body>`, "ab"},
	{"text/CR LF and lone CR become LF", "<body>a\r\nb\rc</body>", "a\nb\nc"},
	{"text/the newline right after <pre> is dropped", "<pre>\nline</pre>", "line"},
	{"text/a table's stray text is moved before the table", `<table>stray<tr><td>cell</td></tr></table>`, "straycell"},
	{"text/text after </body> and </html> joins the body", `<body>a</body>b</html>c`, "abc"},
	{"text/a byte order mark is not text", "\uFEFF<p>x</p>", "x"},
	{"text/white space is kept as written", "<p>  two  spaces\n\tand a tab </p>", "  two  spaces\n\tand a tab "},
	{"text/a textarea's and title's text in the body count", `<body><textarea>t&amp;</textarea><title>x</title></body>`, "t&x"},
	{"text/SVG text and CDATA in foreign content", `<body><svg><text>s</text><![CDATA[c<d]]></svg></body>`, "sc<d"},
	{"text/NUL characters in body text are dropped", "<p>a\x00b</p>", "ab"},
	{"text/a frameset document's body is the frameset", `<frameset><frame src="x"></frameset>`, ""},
	{"text/an empty document has an empty body", ``, ""},
	{"text/unclosed and misnested tags", `<p>a<b>b<i>c</b>d</i>e`, "abcde"},
}

func TestBodyText(t *testing.T) {
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			got, err := BodyText([]byte(r.html))
			if err != nil {
				t.Fatal(err)
			}
			if got != r.want {
				t.Errorf("BodyText(%q) = %q, want %q", r.html, got, r.want)
			}
		})
	}
}

func ExampleBodyText() {
	text, _ := BodyText([]byte(`<html><head><title>Moby-Dick</title></head>
<body><h1>Loomings</h1><p>Call me <i>Ishmael</i>.</p></body></html>`))
	fmt.Printf("%q\n", text)
	// Output: "LoomingsCall me Ishmael."
}
