package report

import (
	"testing"

	"github.com/citecheck/citecheck"
)

func TestWidth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    string
		want int
	}{
		{"ASCII takes a column each", "abc", 3},
		{"CJK ideographs take two", "東京都", 6},
		{"fullwidth forms take two", "ＡＢ", 4},
		{"halfwidth katakana takes one", "ｱｲ", 2},
		{"Hangul syllables take two", "한국", 4},
		{"emoji with emoji presentation take two", "🚀🎉", 4},
		{"a combining mark takes none", "e\u0301", 1},
		{"several combining marks take none", "a\u0301\u0323\u0308", 1},
		{"a skin tone joins its emoji", "👍🏽", 2},
		{"a ZWJ family is one emoji", "👨\u200d👩\u200d👧", 2},
		{"a flag is two regional indicators in two columns", "🇯🇵", 2},
		{"two flags", "🇯🇵🇫🇷", 4},
		{"VS16 draws a text symbol as a two-column emoji", "❤\ufe0f", 2},
		{"VS16 after a letter changes nothing", "a\ufe0f", 1},
		{"a text symbol without VS16 takes one", "❤", 1},
		{"VS15 takes none", "☺\ufe0e", 1},
		{"zero-width space takes none", "a\u200bb", 2},
		{"Hangul jamo vowels join the leading consonant", "\u1100\u1161", 2},
		{"ZWJ between letters takes none and joins nothing", "क\u094d\u200dष", 2},
		{"a skin tone alone is an emoji", "🏽", 2},
		{"ambiguous characters are narrow, as in Western terminals", "…→", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Width(tt.s); got != tt.want {
				t.Errorf("Width(%q) = %d, want %d", tt.s, got, tt.want)
			}
		})
	}
}

func TestGlyph(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    rune
		want string // "" for drawn as itself
	}{
		{"newline is shown as ⏎", '\n', "⏎"},
		{"carriage return is shown as ␍", '\r', "␍"},
		{"tab is shown as ⇥", '\t', "⇥"},
		{"NUL is its control picture", 0, "␀"},
		{"ESC is its control picture, never a raw escape", 0x1B, "␛"},
		{"DEL is its control picture", 0x7F, "␡"},
		{"a C1 control is spelled out", 0x85, "<U+0085>"},
		{"the line separator is spelled out", 0x2028, "<U+2028>"},
		{"zero-width space is spelled out", 0x200B, "<U+200B>"},
		{"a bidi override is spelled out, so it cannot reorder the line", 0x202E, "<U+202E>"},
		{"the BOM is spelled out", 0xFEFF, "<U+FEFF>"},
		{"ZWJ stays raw to hold emoji sequences", 0x200D, ""},
		{"a tag character stays raw for flag sequences", 0xE0067, ""},
		{"a letter is itself", 'é', ""},
		{"a supplementary code point is spelled with its digits", 0xE0001, "<U+E0001>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, w, esc := glyph(tt.r)
			if got != tt.want || esc != (tt.want != "") || (esc && w != Width(got)) {
				t.Errorf("glyph(%U) = %q, %d, %v; want %q", tt.r, got, w, esc, tt.want)
			}
		})
	}
}

// TestExcerptCaret pins where the caret goes: under the marked character,
// counted in display columns, widened to the cluster the terminal draws.
func TestExcerptCaret(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		text          string
		from, to      int // code points
		col, w, first int
	}{
		{"an ASCII character", "abcdef", 2, 3, 2, 1, 1},
		{"after wide characters", "東京都abc", 3, 4, 6, 1, 1},
		{"a wide character", "ab東京", 3, 4, 4, 2, 2},
		{"a combining mark points at its base", "cafe\u0301!", 4, 5, 3, 1, 1},
		{"a base takes its combining mark along", "cafe\u0301!", 3, 4, 3, 1, 1},
		{"a skin tone points at its emoji", "ok 👍🏽!", 4, 5, 3, 2, 2},
		{"a ZWJ family member points at the family", "a 👨\u200d👩\u200d👧 b", 6, 7, 2, 2, 2},
		{"the second half of a flag points at the flag", "x🇯🇵y", 2, 3, 1, 2, 2},
		{"the first half of a flag takes the flag", "x🇯🇵y", 1, 2, 1, 2, 2},
		{"a newline is one column", "ab\ncd", 3, 4, 3, 1, 1},
		{"after a spelled-out control", "a\u200bb", 2, 3, 9, 1, 1},
		{"a region: caret on its first cluster, tildes after", "abcdef", 1, 4, 1, 3, 1},
		{"a region starting with a wide character", "x東京y", 1, 3, 1, 4, 2},
		{"an empty mark past the end", "abc", 3, 3, 3, 1, 1},
		{"far into a long line, the left is cut to contextCols", "0123456789012345678901234567890123456789xyz", 40, 41, contextCols + 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := citecheck.NewText(tt.text)
			l := excerpt(tt.text, x.ByteOffset(tt.from), x.ByteOffset(tt.to))
			if l.markCol != tt.col || l.markW != tt.w || l.firstW != tt.first {
				t.Errorf("mark at column %d width %d (first %d), want %d width %d (first %d)", l.markCol, l.markW, l.firstW, tt.col, tt.w, tt.first)
			}
		})
	}
}
