package main

import (
	"context"
	"errors"
	"io"
	"net"

	"github.com/urlfetch/urlfetch/fetch"
)

// runSession bridges an interactive session (telnet) to the command's
// streams: what stdin gives goes to the session, what the session says
// goes to stdout, until either side closes. Without a terminal this is
// what makes `printf 'cmd\n' | fetch telnet://...` work in scripts.
func runSession(ctx context.Context, resp *fetch.Response, stdin io.Reader, stdout io.Writer) error {
	conn := resp.Conn
	if conn == nil {
		return errors.New("session without a connection")
	}
	defer resp.Body.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	// stdin to the session; at stdin's end, half-close so the server sees
	// it, and keep reading what it still has to say.
	go func() {
		io.Copy(conn, stdin)
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	}()
	_, err := io.Copy(stdout, resp.Body)
	if errors.Is(err, net.ErrClosed) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
