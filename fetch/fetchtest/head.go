package fetchtest

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

// Head asks c for rawURL's metadata (fetch.Request.Head), within a
// minute, and holds the Response to an empty Body whose Close succeeds:
// the one helper of every driver's Head tests and the integration suite's.
func Head(t testing.TB, c *fetch.Client, rawURL string) (*fetch.Response, error) {
	t.Helper()
	req, err := c.NewRequest(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	req.Head = true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := c.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	if b, err := io.ReadAll(resp.Body); err != nil || len(b) > 0 {
		t.Errorf("Head(%q): Body %q, %v; want no bytes", rawURL, b, err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Head(%q): Body.Close() = %v", rawURL, err)
	}
	return resp, nil
}
