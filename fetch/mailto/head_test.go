package mailto

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

// Issue 22, point 2: a mailto URL has no metadata to ask for: a Head
// request is ErrUnsupported, and no connection is made, no message sent.
func TestHeadUnsupported(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan string, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c.RemoteAddr().String()
			c.Close()
		}
	}()
	c := &fetch.Client{NetrcFile: "-"}
	c.Register("mailto", &Driver{Server: ln.Addr().String(), From: "a@b"})
	req, err := c.NewRequest("mailto:someone@example.org?subject=hi&body=hello")
	if err != nil {
		t.Fatal(err)
	}
	req.Head = true
	if _, err := c.Do(t.Context(), req); !errors.Is(err, fetch.ErrUnsupported) {
		t.Errorf("Head(mailto:...) = %v, want ErrUnsupported", err)
	}
	// A probe of our own: the listener accepts in order, so a connection
	// of the driver's would come before it.
	probe, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	select {
	case got := <-accepted:
		if got != probe.LocalAddr().String() {
			t.Errorf("the SMTP server got a connection from %s before the probe's", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the probe was not accepted")
	}
}
