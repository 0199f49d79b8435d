package gopher_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/gopher"
)

func TestParseItem(t *testing.T) {
	tests := []struct {
		line string
		want gopher.Item
		url  string
		err  string
	}{
		{"0Hi\t/hi.txt\th.example\t70", gopher.Item{Type: '0', Display: "Hi", Selector: "/hi.txt", Host: "h.example", Port: 70}, "gopher://h.example/0/hi.txt", ""},
		{"1Dir\t\th.example\t7070\t+", gopher.Item{Type: '1', Display: "Dir", Host: "h.example", Port: 7070, Plus: '+'}, "gopher://h.example:7070/1%09%09+", ""},
		{"7Find\t/f\th.example\t70\t?", gopher.Item{Type: '7', Display: "Find", Selector: "/f", Host: "h.example", Port: 70, Plus: '?'}, "gopher://h.example/7/f", ""},
		{"0Odd\tsel\twith\ttabs\th\t70", gopher.Item{}, "", `bad port "tabs"`},
		{"9Port\t/x\th.example\t 70 \textra stuff", gopher.Item{Type: '9', Display: "Port", Selector: "/x", Host: "h.example", Port: 70}, "gopher://h.example/9/x", ""},
		{"0Sel\tTAB\x01%\th.example\t70", gopher.Item{Type: '0', Display: "Sel", Selector: "TAB\x01%", Host: "h.example", Port: 70}, "gopher://h.example/0TAB%01%25", ""},
		{"0Zero\t/z\th.example\t0", gopher.Item{}, "", `bad port "0"`},
		{"iInfo only", gopher.Item{Type: 'i', Display: "Info only"}, "", ""},
		{"3Error only\terror.host\t1", gopher.Item{Type: '3', Display: "Error only"}, "", ""},
		{"", gopher.Item{}, "", "empty line"},
		{"0", gopher.Item{}, "", "1 fields"},
		{"hLink\tURL:mailto:a@b.example\th.example\t70", gopher.Item{Type: 'h', Display: "Link", Selector: "URL:mailto:a@b.example", Host: "h.example", Port: 70}, "mailto:a@b.example", ""},
		{"hPage\t/URL:http://x.example/\th.example\t70", gopher.Item{Type: 'h', Display: "Page", Selector: "/URL:http://x.example/", Host: "h.example", Port: 70}, "http://x.example/", ""},
		{"8Chat\tbob smith\tbbs.example\t2323", gopher.Item{Type: '8', Display: "Chat", Selector: "bob smith", Host: "bbs.example", Port: 2323}, "telnet://bob%20smith@bbs.example:2323/", ""},
		{"<Song\t/s\th.example\t70", gopher.Item{Type: '<', Display: "Song", Selector: "/s", Host: "h.example", Port: 70}, "gopher://h.example/%3C/s", ""},
	}
	for _, tt := range tests {
		got, err := gopher.ParseItem(tt.line)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseItem(%q) error = %v, want %q", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseItem(%q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
			continue
		}
		if u, err := got.URL(); u != tt.url || err != nil {
			t.Errorf("ParseItem(%q).URL() = %q, %v; want %q", tt.line, u, err, tt.url)
		}
	}
}

func TestItemType(t *testing.T) {
	for typ, want := range map[gopher.ItemType][2]string{
		'0': {"text", "text/plain"}, '1': {"menu", gopher.MenuType}, '9': {"binary", "application/octet-stream"},
		'I': {"image", ""}, 'Q': {"'Q'", ""},
	} {
		if typ.String() != want[0] || typ.MediaType() != want[1] {
			t.Errorf("ItemType(%q) = %q %q, want %q %q", byte(typ), typ.String(), typ.MediaType(), want[0], want[1])
		}
	}
}

func TestParseAttributes(t *testing.T) {
	in := "+INFO: 1Dir\t/d\th\t70\t+\n+ADMIN\n Admin: A <a@b>\nno leading space\n\n" +
		"+ABSTRACT: 0Long abstract\t/abs\th\t70\n Short one.\n" +
		"+INFO: 0F\t/f\th\t70\n.\n+INFO: 0after the end line\t/x\th\t70\n"
	items, err := gopher.ParseAttributes(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(items)
	want := `[{[{+INFO 1Dir	/d	h	70	+ []} {+ADMIN  [Admin: A <a@b> no leading space]} {+ABSTRACT 0Long abstract	/abs	h	70 [Short one.]}]} {[{+INFO 0F	/f	h	70 []}]}]`
	if got != want {
		t.Errorf("ParseAttributes = %s\nwant %s", got, want)
	}
	if _, err := gopher.ParseAttributes(strings.NewReader("Just a document.\n")); err == nil || !strings.Contains(err.Error(), `no attribute blocks: the reply begins "Just a document."`) {
		t.Errorf("ParseAttributes(a document) error = %v", err)
	}
	if _, err := gopher.ParseAttributes(strings.NewReader("+INFO: " + strings.Repeat("x", gopher.MaxLine) + "\n")); err == nil {
		t.Errorf("ParseAttributes(a line over MaxLine) = nil error")
	}
	if _, err := gopher.ParseAsk(&gopher.Block{Name: "+ASK", Lines: []string{"Frobnicate: what?"}}); err == nil {
		t.Errorf("ParseAsk(unknown kind) = nil error")
	}
}

func TestLinePrompter(t *testing.T) {
	in := strings.NewReader("\nBob\n2\nbogus\nline one\n.line two\n.\n")
	var out strings.Builder
	ask := gopher.LinePrompter(in, &out)
	qs := []gopher.Question{
		{Kind: "Ask", Prompt: "Name?", Default: "nobody"},
		{Kind: "Ask", Prompt: "Name?", Default: "nobody"},
		{Kind: "Choose", Prompt: "Colour?", Choices: []string{"red", "green"}},
		{Kind: "Choose", Prompt: "Colour?", Choices: []string{"red", "green"}},
		{Kind: "AskL", Prompt: "Address?"},
		{Kind: "Note", Prompt: "Thanks."},
	}
	var got []string
	for _, q := range qs {
		a, err := ask(context.Background(), q)
		if err != nil {
			t.Fatalf("ask(%v): %v", q, err)
		}
		got = append(got, a)
	}
	want := []string{"nobody", "Bob", "green", "bogus", "line one\n.line two", ""}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("answers %q, want %q", got, want)
	}
	if !strings.Contains(out.String(), "Name? [nobody] ") || !strings.Contains(out.String(), "  2) green") || !strings.Contains(out.String(), "Thanks.") {
		t.Errorf("prompts:\n%s", out.String())
	}
	if _, err := ask(context.Background(), qs[0]); err == nil {
		t.Errorf("ask at the end of the input: nil error")
	}
}

// Issue 23, the sweep: an attribute reply is bounded in lines, not only
// in bytes: 4 MiB of "+A" lines decoded into half a gigabyte.
func TestAttributeLinesBound(t *testing.T) {
	many := strings.Repeat("+A\n", 1<<16+1)
	if _, err := gopher.ParseAttributes(strings.NewReader(many)); !errors.Is(err, fetch.ErrProtocol) || !strings.Contains(err.Error(), "more than") {
		t.Errorf("%d attribute lines: %v; want ErrProtocol", 1<<16+1, err)
	}
	if items, err := gopher.ParseAttributes(strings.NewReader(many[:3*1000])); err != nil || len(items) != 1 || len(items[0].Blocks) != 1000 {
		t.Errorf("1000 attribute lines: %v", err)
	}
}
