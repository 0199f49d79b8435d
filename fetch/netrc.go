package fetch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urlfetch/urlfetch/internal/netrc"
)

// netrcFile returns the Client's parsed netrc file, or nil when there is
// none. A file that cannot be parsed is an error; a missing one is not.
func (c *Client) netrcFile() (*netrc.File, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.netrcOK {
		return c.netrc, nil
	}
	path := c.NetrcFile
	if path == "-" {
		c.netrcOK = true
		return nil, nil
	}
	explicit := path != ""
	if path == "" {
		path = os.Getenv("NETRC")
		explicit = path != ""
	}
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			c.netrcOK = true
			return nil, nil
		}
		path = filepath.Join(home, ".netrc")
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !explicit {
			c.netrcOK = true
			return nil, nil
		}
		return nil, fmt.Errorf("netrc: %w", err)
	}
	defer f.Close()
	n, err := netrc.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.netrc, c.netrcOK = n, true
	return n, nil
}

// NetrcLogin returns the login and password netrc has for host (and user,
// when not ""). The password becomes a secret of the request. The default
// entry, which names no host, is used only for a host the user chose
// (UserHost): a server that redirects elsewhere gets no password the user
// did not store for its host.
func (r *Request) NetrcLogin(host, user string) (login, password string, ok bool, err error) {
	n, err := r.cl().netrcFile()
	if err != nil || n == nil {
		return "", "", false, err
	}
	e, ok := n.Lookup(host, user)
	if !ok || e.Machine == "" && !r.UserHost(host) {
		return "", "", false, nil
	}
	r.AddSecret(e.Password)
	return e.Login, e.Password, true, nil
}

// Password finds the password of user at host when the URL gives none:
// from netrc, else from the Client's prompt. Without either it returns an
// ErrAuth error that says how to give one. The prompt is never used for a
// URL a server chose (a Request with a Hop): a server must not be able to
// make the user type a password for a host it picked.
func (r *Request) Password(ctx context.Context, host, user string) (string, error) {
	if login, pw, ok, err := r.NetrcLogin(host, user); err != nil {
		return "", Errorf(ErrAuth, "reading netrc: %w", err)
	} else if ok && pw != "" && (login == "" || login == user) {
		return pw, nil
	}
	if r.Hop != nil {
		return "", Errorf(ErrAuth, "%s@%s needs a password, and a server chose this URL (%s): no password is asked for it; store one for %s in ~/.netrc to allow it", user, host, r.Hop, host)
	}
	prompt := r.cl().Prompt
	if prompt == nil {
		return "", Errorf(ErrAuth, "%s@%s needs a password: give it in the URL (user:password@) or in ~/.netrc; there is no terminal to ask", user, host)
	}
	pw, err := prompt(ctx, fmt.Sprintf("Password for %s@%s: ", user, host))
	if err != nil {
		return "", Errorf(ErrAuth, "asking for the password of %s@%s: %w", user, host, err)
	}
	r.AddSecret(pw)
	return pw, nil
}
