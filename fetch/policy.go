package fetch

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urlfetch/urlfetch/uri"
)

// Where policy lives. As in net/http, the Client is policy and a Driver is
// one transaction: a driver that meets a redirect returns it as a Response
// of Kind Redirect and never follows it, and nothing but the Client
// follows a URL that a server chose. CheckHop is the one function that
// decides whether such a URL may be followed; Do calls it for every
// Request that carries a Hop, and chooses, for every Request, the gateway
// and the port policy. A driver asks nothing back: what it needs of the
// decision is on the Request (Gateway, Hop, UserHost).

// DefaultMaxRedirects is how many redirects Do follows for a Client whose
// MaxRedirects is 0.
const DefaultMaxRedirects = 10

// ErrUseLastResponse, returned by Client.CheckRedirect, makes Do return
// the redirect it was asked about, unfollowed: a Response of Kind Redirect
// whose Body the caller must close. As net/http's.
var ErrUseLastResponse = errors.New("fetch: use last response")

// HopKind says how a server chose a URL.
type HopKind int

const (
	// HopRedirect: the target of a redirect reply (an HTTP 3xx).
	HopRedirect HopKind = iota + 1
	// HopEntry: an entry of a listing: an FTP or file directory entry,
	// a gopher menu item, a news article, a WAIS document.
	HopEntry
	// HopLink: a link in a document (an HTML href or src).
	HopLink
)

func (k HopKind) String() string {
	switch k {
	case HopRedirect:
		return "redirect"
	case HopEntry:
		return "listing entry"
	case HopLink:
		return "link"
	}
	return "hop"
}

// A Hop is a URL a server chose, as the Client weighs it before following
// it: the target of a redirect, an entry of a listing, a link.
type Hop struct {
	Kind HopKind
	// From is the URL whose reply named To.
	From *uri.URL
	To   *uri.URL
	// Status is the reply that carried a redirect ("302 Found"), for
	// messages; "" when there is none.
	Status string
}

// String describes the hop for messages, passwords masked: "the redirect
// (302 Found) from http://a/ to ftp://b/x".
func (h Hop) String() string {
	kind := h.Kind.String()
	if h.Status != "" {
		kind += " (" + h.Status + ")"
	}
	return fmt.Sprintf("the %s from %s to %s", kind, h.From.Redacted(), h.To.Redacted())
}

// A FollowChecker is a Driver that declares which of its URLs a server may
// send the Client to: those whose fetch reads and sends nothing of the
// user's (no file of theirs, no message in their name, no keyboard, no
// answers to a form). CheckFollow returns nil for such a URL, or an error
// that says why not. A driver that is not a FollowChecker is never
// followed unless the Client's FollowSchemes names its scheme; one that
// is, is asked about every URL, whatever FollowSchemes says.
type FollowChecker interface {
	CheckFollow(u *uri.URL) error
}

// A PrivateDriver is a Driver that reads what is the user's alone, as the
// mid: and cid: drivers read the user's mail: no URL a server chose may
// lead to it, whatever FollowSchemes says (--proto-redir cannot widen
// it), because a server that could name such a URL could make the Client
// read the user's mail and carry it elsewhere. CheckHop asks
// CheckPrivateHop about every hop to one of its URLs, before anything
// else; it returns nil only for a hop that stays within what the user
// asked for (the entry of a listing of a message's parts, leading to a
// part of the same message), else an error that says why not.
type PrivateDriver interface {
	CheckPrivateHop(h Hop) error
}

// tlsSchemes are the schemes whose protocol runs over TLS from the first
// byte or by negotiation the URL requires.
var tlsSchemes = []string{"https", "ftps", "nntps", "snews", "gophers", "telnets", "imaps", "pop3s", "ldaps", "wss"}

// TLSScheme reports whether URLs of scheme are fetched over TLS.
func TLSScheme(scheme string) bool { return slices.Contains(tlsSchemes, scheme) }

// CheckHop decides whether the Client may follow h, a URL a server chose.
// It is the one place that decides it: Do calls it for every redirect and
// for every Request that carries a Hop (a listing entry or a link that a
// caller follows). In order:
//
//   - To's scheme must be one the Client uses at all (AllowSchemes);
//   - a PrivateDriver's URL (mid:, cid:: the user's mail) must be one
//     its CheckPrivateHop accepts, whatever FollowSchemes says;
//   - it must be one a server may send the Client to: one FollowSchemes
//     names, or, when FollowSchemes is nil, one whose driver is a
//     FollowChecker (of the built-in drivers: http, https, ftp, gopher,
//     news, nntp, snews and nntps; never file, mailto, telnet, rlogin,
//     tn3270 or wais).
//     A listing's entry or a link that stays on From's server (the same
//     scheme, host and port: a file: directory's files, an FTP
//     directory's) is part of what the user asked for and needs no such
//     leave; a redirect always does;
//   - the driver, when it is a FollowChecker, must accept To itself (the
//     gopher driver refuses a Gopher+ data block, an +ASK form and a
//     search without its words);
//   - a hop from a TLS scheme (https, nntps, snews) must not lead to a
//     cleartext one (http, ftp, gopher, nntp, news) unless
//     AllowDowngrade.
//
// A refusal is an ErrUnsafe error whose message names both URLs. The port
// policy and the gateway are applied by Do to the Request as to any other.
func (c *Client) CheckHop(h Hop) error {
	if h.To == nil || h.From == nil {
		return Errorf(ErrUnsafe, "a hop without its URLs")
	}
	scheme := h.To.Scheme
	if !c.schemeAllowed(scheme) {
		return Errorf(ErrUnsafe, "refusing %s: this client may not use %s: URLs (allowed: %s; --proto)", h, scheme, strings.Join(c.AllowSchemes, ", "))
	}
	d := c.Driver(scheme)
	if pd, ok := d.(PrivateDriver); ok {
		if err := pd.CheckPrivateHop(h); err != nil {
			return Errorf(ErrUnsafe, "refusing %s: %w", h, err)
		}
	}
	fc, _ := d.(FollowChecker)
	if !c.followable(scheme, fc != nil) && (h.Kind == HopRedirect || !sameServer(h.From, h.To)) {
		return Errorf(ErrUnsafe, "refusing %s: a server may not send this client to %s: URLs (it may to %s; --proto-redir)", h, scheme, strings.Join(c.FollowableSchemes(), ", "))
	}
	if fc != nil {
		if err := fc.CheckFollow(h.To); err != nil {
			return Errorf(ErrUnsafe, "refusing %s: %w", h, err)
		}
	}
	if TLSScheme(h.From.Scheme) && !TLSScheme(scheme) && !c.AllowDowngrade {
		return Errorf(ErrUnsafe, "refusing %s: it leads from TLS (%s) to cleartext (%s) (--allow-downgrade)", h, h.From.Scheme, scheme)
	}
	return nil
}

// sameServer reports whether a and b name the same scheme, host and port.
func sameServer(a, b *uri.URL) bool {
	return a.Scheme == b.Scheme && uri.SameHost(a.Host, b.Host) && a.PortNumber() == b.PortNumber()
}

// schemeAllowed applies AllowSchemes to any URL, the user's or a server's.
func (c *Client) schemeAllowed(scheme string) bool {
	return c.AllowSchemes == nil || slices.Contains(c.AllowSchemes, scheme)
}

// checkScheme refuses a URL the user gave whose scheme AllowSchemes
// leaves out.
func (c *Client) checkScheme(scheme string) error {
	if c.schemeAllowed(scheme) {
		return nil
	}
	return Errorf(ErrUnsafe, "this client may not use %s: URLs (allowed: %s; --proto)", scheme, strings.Join(c.AllowSchemes, ", "))
}

// followable reports whether a server may send the Client to scheme, its
// driver declaring itself safe to follow or not.
func (c *Client) followable(scheme string, declared bool) bool {
	if c.FollowSchemes != nil {
		return slices.Contains(c.FollowSchemes, scheme)
	}
	return declared
}

// FollowableSchemes returns the schemes a server may send the Client to,
// sorted: FollowSchemes when set, else the registered schemes whose
// driver is a FollowChecker; either way only those AllowSchemes allows.
func (c *Client) FollowableSchemes() []string {
	var out []string
	if c.FollowSchemes != nil {
		out = slices.Clone(c.FollowSchemes)
	} else {
		out = c.DefaultFollowSchemes()
	}
	out = slices.DeleteFunc(out, func(s string) bool { return !c.schemeAllowed(s) })
	slices.Sort(out)
	return slices.Compact(out)
}

// DefaultFollowSchemes returns the registered schemes whose driver is a
// FollowChecker, sorted: the schemes a server may send the Client to when
// FollowSchemes is nil.
func (c *Client) DefaultFollowSchemes() []string {
	var out []string
	for _, s := range c.Schemes() {
		if _, ok := c.Driver(s).(FollowChecker); ok {
			out = append(out, s)
		}
	}
	return out
}

// maxRedirects is the Client's limit of redirects per Do.
func (c *Client) maxRedirects() int {
	switch {
	case c.MaxRedirects < 0:
		return 0
	case c.MaxRedirects == 0:
		return DefaultMaxRedirects
	}
	return c.MaxRedirects
}

// redirect returns the Request that follows resp, a redirect that r's
// driver returned, after via, the requests that led to r. It applies the
// hop limit, CheckHop and CheckRedirect; an error of ErrUseLastResponse
// means resp is the answer.
func (c *Client) redirect(r *Request, resp *Response, via []*Request) (*Request, error) {
	if resp.Location == nil {
		return nil, Errorf(ErrProtocol, "a redirect (%s) without a target", resp.Status)
	}
	next := r.Follow(HopRedirect, resp.Location)
	next.Hop.Status = resp.Status
	next.Offset = r.Offset
	next.Head = r.Head
	if n := c.maxRedirects(); len(via) >= n {
		if n == 0 {
			return nil, Errorf(ErrProtocol, "not following %s: this client follows no redirects (--max-redirs 0)", next.Hop)
		}
		return nil, Errorf(ErrProtocol, "stopped after %d redirects: not following %s (--max-redirs)", n, next.Hop)
	}
	if err := c.CheckHop(*next.Hop); err != nil {
		return nil, err
	}
	next.hopChecked = true
	if c.CheckRedirect != nil {
		if err := c.CheckRedirect(next, append(via[:len(via):len(via)], r)); err != nil {
			return nil, err
		}
	}
	r.Tracef(Note, "redirected (%s) to %s", resp.Status, next.URL.Redacted())
	return next, nil
}
