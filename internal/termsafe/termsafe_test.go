package termsafe

import "testing"

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain ü text", "plain ü text"},
		{"a\tb\nc\rd\x1be\x07f\x7f", `a\tb\nc\rd\ee\x07f\x7f`},
		{"\u0085\u009b\u202e\u2066\u200f", `\u0085\u009b\u202e\u2066\u200f`},
		{"bad \xc3 utf-8 \xff", `bad \xc3 utf-8 \xff`},
		{`back\slash`, `back\slash`},
	} {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
