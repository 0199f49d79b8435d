package gopher

import (
	"errors"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// FilledForm writes the answers as RFC 1738 section 3.4.9's Gopher+
// string: a Note takes no line, an AskL its count and its lines, a line
// that begins with "." is stuffed, and the URL reads back as the same
// request.
func TestFilledForm(t *testing.T) {
	g := &uri.Gopher{Host: "h", Type: '0', Selector: "/form.txt"}
	qs := []Question{{Kind: "Note", Prompt: "hi"}, {Kind: "Ask", Prompt: "Name?"}, {Kind: "AskL", Prompt: "Text"}, {Kind: "Choose", Prompt: "Colour", Choices: []string{"red", "blue"}}}
	f, err := FilledForm(g, qs, []string{"", "Ann", "one\r\n.two", "blue"})
	if err != nil {
		t.Fatal(err)
	}
	want := "gopher://h/0/form.txt%09%09+%091%0D%0A+-1%0D%0AAnn%0D%0A2%0D%0Aone%0D%0A..two%0D%0Ablue%0D%0A.%0D%0A"
	if got := f.String(); got != want {
		t.Errorf("FilledForm = %s, want %s", got, want)
	}
	u, err := uri.Parse(f.String())
	if err != nil {
		t.Fatal(err)
	}
	back, _ := u.Gopher()
	if back.Request() != "/form.txt\t+\t1\r\n+-1\r\nAnn\r\n2\r\none\r\n..two\r\nblue\r\n.\r\n" || checkForm(back.Plus) != nil {
		t.Errorf("read back: %q, %v", back.Request(), checkForm(back.Plus))
	}
	for _, bad := range [][]string{{"", "a\r\nb", "", "red"}, {"", "a\x00", "", "red"}, {"", "a"}} {
		if _, err := FilledForm(g, qs, bad); !errors.Is(err, fetch.ErrUnsafe) {
			t.Errorf("FilledForm(%q) = %v, want ErrUnsafe", bad, err)
		}
	}
}
