package http

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strconv"

	"github.com/urlfetch/urlfetch/fetch"
)

// SOCKS version 5 (RFC 1928) and its username/password method (RFC 1929).
const (
	socksVersion         = 5
	socksNoAuth          = 0x00
	socksUserPass        = 0x02
	socksNoMethod        = 0xff
	socksConnect         = 0x01
	socksIPv4            = 0x01
	socksDomain          = 0x03
	socksIPv6            = 0x04
	socksUserPassV       = 0x01 // RFC 1929's own version
	socksSucceeded       = 0x00
	socksNotAllowed      = 0x02
	socksCmdUnsupported  = 0x07
	socksAddrUnsupported = 0x08
)

// socksReplyText is the text of RFC 1928 section 6 for each reply code.
var socksReplyText = map[byte]string{
	0x01: "general SOCKS server failure",
	0x02: "connection not allowed by ruleset",
	0x03: "network unreachable",
	0x04: "host unreachable",
	0x05: "connection refused",
	0x06: "TTL expired",
	0x07: "command not supported",
	0x08: "address type not supported",
}

// socksTunnel opens a tunnel to target (host:port) through the SOCKS5
// gateway gw, as net/http does for socks5:// and socks5h:// in
// http_proxy: the host goes to the gateway as a name, for it to resolve.
func socksTunnel(ctx context.Context, req *fetch.Request, gw *url.URL, target string) (net.Conn, error) {
	c, err := req.DialAddr(ctx, gw.Scheme, gatewayAddr(gw))
	if err != nil {
		return nil, err
	}
	req.Tracef(fetch.Note, "SOCKS5 CONNECT %s", target)
	if err := socksConnectTo(c, gw.User, target); err != nil {
		c.Close()
		return nil, fmt.Errorf("gateway %s: %w", gw.Redacted(), err)
	}
	return c, nil
}

// socksConnectTo runs the SOCKS5 handshake over c: the method (none, or
// a user and password when user is set), then CONNECT to target. An
// error of the server's reply is ErrConnect (unreachable, refused),
// ErrAuth (credentials or ruleset refused) or ErrProtocol.
func socksConnectTo(c net.Conn, user *url.Userinfo, target string) error {
	host, portText, err := net.SplitHostPort(target)
	if err != nil {
		return fetch.Errorf(fetch.ErrURL, "socks: %v", err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 1 || port > 65535 {
		return fetch.Errorf(fetch.ErrURL, "socks: bad port in %q", target)
	}
	methods := []byte{socksNoAuth}
	if user != nil {
		methods = []byte{socksNoAuth, socksUserPass}
	}
	if _, err := c.Write(append([]byte{socksVersion, byte(len(methods))}, methods...)); err != nil {
		return socksError(err)
	}
	var reply [2]byte
	if _, err := io.ReadFull(c, reply[:]); err != nil {
		return socksError(err)
	}
	switch {
	case reply[0] != socksVersion:
		return fetch.Errorf(fetch.ErrProtocol, "socks: the server speaks SOCKS version %d, not 5", reply[0])
	case reply[1] == socksUserPass && user != nil:
		if err := socksLogin(c, user); err != nil {
			return err
		}
	case reply[1] == socksNoMethod:
		offered := "no authentication"
		if user != nil {
			offered += ", username and password"
		}
		return fetch.Errorf(fetch.ErrAuth, "socks: the server accepts none of the methods offered (%s)", offered)
	case reply[1] != socksNoAuth:
		return fetch.Errorf(fetch.ErrProtocol, "socks: the server chose method %#x, which was not offered", reply[1])
	}

	msg := []byte{socksVersion, socksConnect, 0}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Is4() {
			msg = append(msg, socksIPv4)
		} else {
			msg = append(msg, socksIPv6)
		}
		msg = append(msg, ip.AsSlice()...)
	} else {
		if len(host) > 255 {
			return fetch.Errorf(fetch.ErrURL, "socks: host name of %d bytes; SOCKS5 takes 255 at most", len(host))
		}
		msg = append(msg, socksDomain, byte(len(host)))
		msg = append(msg, host...)
	}
	msg = binary.BigEndian.AppendUint16(msg, uint16(port))
	if _, err := c.Write(msg); err != nil {
		return socksError(err)
	}
	// VER REP RSV ATYP, then the bound address and port, unused.
	var head [4]byte
	if _, err := io.ReadFull(c, head[:]); err != nil {
		return socksError(err)
	}
	if head[0] != socksVersion {
		return fetch.Errorf(fetch.ErrProtocol, "socks: a reply of SOCKS version %d, not 5", head[0])
	}
	if rep := head[1]; rep != socksSucceeded {
		text, ok := socksReplyText[rep]
		if !ok {
			text = fmt.Sprintf("reply code %#x", rep)
		}
		kind := fetch.ErrConnect
		switch rep {
		case socksNotAllowed:
			kind = fetch.ErrAuth
		case socksCmdUnsupported, socksAddrUnsupported:
			kind = fetch.ErrProtocol
		}
		return fetch.Errorf(kind, "socks: CONNECT %s: %s", target, text)
	}
	var skip int
	switch head[3] {
	case socksIPv4:
		skip = net.IPv4len
	case socksIPv6:
		skip = net.IPv6len
	case socksDomain:
		var n [1]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return socksError(err)
		}
		skip = int(n[0])
	default:
		return fetch.Errorf(fetch.ErrProtocol, "socks: a bound address of type %#x", head[3])
	}
	if _, err := io.ReadFull(c, make([]byte, skip+2)); err != nil {
		return socksError(err)
	}
	return nil
}

// socksLogin sends user's name and password (RFC 1929).
func socksLogin(c net.Conn, user *url.Userinfo) error {
	name := user.Username()
	pw, _ := user.Password()
	if len(name) > 255 || len(pw) > 255 {
		return fetch.Errorf(fetch.ErrAuth, "socks: a user name or password longer than the 255 bytes RFC 1929 allows")
	}
	msg := []byte{socksUserPassV, byte(len(name))}
	msg = append(msg, name...)
	msg = append(msg, byte(len(pw)))
	msg = append(msg, pw...)
	if _, err := c.Write(msg); err != nil {
		return socksError(err)
	}
	var reply [2]byte
	if _, err := io.ReadFull(c, reply[:]); err != nil {
		return socksError(err)
	}
	if reply[1] != 0 {
		return fetch.Errorf(fetch.ErrAuth, "socks: the server refused user %q and its password", name)
	}
	return nil
}

// socksError gives a kind to a failed read or write of the handshake.
func socksError(err error) error {
	if fetch.Class(err) != nil {
		return err
	}
	if fetch.ConnBroken(err) {
		return fetch.Errorf(fetch.ErrConnect, "socks: the server closed the connection in the handshake: %w", err)
	}
	return fetch.Errorf(fetch.ErrConnect, "socks: %w", err)
}
