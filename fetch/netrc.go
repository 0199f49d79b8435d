package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/url"
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
	return r.netrcLogin(host, user, r.UserHost(host))
}

// netrcLogin is NetrcLogin, with the default entry used or not.
func (r *Request) netrcLogin(host, user string, useDefault bool) (login, password string, ok bool, err error) {
	n, err := r.cl().netrcFile()
	if err != nil || n == nil {
		return "", "", false, err
	}
	e, ok := n.Lookup(host, user)
	if !ok || e.Machine == "" && !useDefault {
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
	return r.askPassword(ctx, host, user)
}

// askPassword asks the Client's prompt for the password of user at host,
// unless a server chose the URL.
func (r *Request) askPassword(ctx context.Context, host, user string) (string, error) {
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

// Credentials returns the user and password to present for r.URL (the
// http driver sends them as Basic authorization), and whether there are
// any. In order:
//
//   - the URL's own user, with its password, or else netrc's for that
//     user at the host, or else the prompt's (not for a URL a server
//     chose);
//   - where the user's credentials may go (UserOrigin: the user's URL,
//     and a redirect on its server): those the user's URL was fetched
//     with, else the Client's Login (its password, when it has none,
//     netrc's for its user at the host, else the prompt's, asked once
//     per Client), else netrc's machine entry for the host;
//   - nothing else: a URL a server chose on another server gets only
//     what it carries itself, a user and password the server wrote.
//
// netrc's default entry, which names no host, is not used here: it holds
// the anonymous FTP login (ftp(1)'s convention, "default login anonymous
// password user@site"), and sending it to every web server that asks, or
// to every web server at all (the credentials go with the first
// request), would give the user's e-mail address, or a real password
// stored for FTP, to any site. A user name in the URL finds its password
// in a machine entry only, for the same reason. Every password found
// becomes a secret of the request.
func (r *Request) Credentials(ctx context.Context) (user, password string, ok bool, err error) {
	u := r.URL
	if u.HasUser {
		user = u.Username()
		if pw, has := u.PasswordValue(); has {
			r.keep(user, pw)
			return user, pw, true, nil
		}
		if r.Hop != nil && !r.UserOrigin() {
			return user, "", true, nil
		}
		if c := r.creds; c != nil && c.user == user {
			return user, c.password, true, nil
		}
		pw, err := r.machinePassword(ctx, user)
		if err != nil {
			return "", "", false, err
		}
		r.keep(user, pw)
		return user, pw, true, nil
	}
	if !r.UserOrigin() {
		return "", "", false, nil
	}
	if c := r.creds; c != nil {
		return c.user, c.password, true, nil
	}
	if l := r.cl().Login; l != nil {
		user = l.Username()
		pw, err := r.loginPassword(ctx, l)
		if err != nil {
			return "", "", false, err
		}
		r.keep(user, pw)
		return user, pw, true, nil
	}
	login, pw, found, err := r.netrcMachine(u.Host, "")
	if err != nil {
		return "", "", false, err
	}
	if !found || login == "" {
		return "", "", false, nil
	}
	r.keep(login, pw)
	return login, pw, true, nil
}

// loginPassword returns the password of the Client's Login l: its own,
// else netrc's for its user at r.URL's host, else the prompt's, asked
// once for every Request of the Client, and never for a URL a server
// chose (which, on the user's server, reuses what the user's URL was
// fetched with).
func (r *Request) loginPassword(ctx context.Context, l *url.Userinfo) (string, error) {
	user := l.Username()
	if pw, ok := l.Password(); ok {
		r.AddSecret(pw)
		return pw, nil
	}
	login, pw, ok, err := r.netrcMachine(r.URL.Host, user)
	if err != nil {
		return "", err
	}
	if ok && (login == "" || login == user) {
		return pw, nil
	}
	c := r.cl()
	c.login.mu.Lock()
	defer c.login.mu.Unlock()
	if !c.login.asked && r.Hop != nil {
		return "", Errorf(ErrAuth, "-u %s gives no password, and a server chose this URL (%s): no password is asked for it", user, r.Hop)
	}
	if !c.login.asked {
		c.login.asked = true
		c.login.password, c.login.err = c.askLogin(ctx, user, r.URL.Host)
	}
	if c.login.err != nil {
		return "", c.login.err
	}
	r.AddSecret(c.login.password)
	return c.login.password, nil
}

// askLogin asks Prompt for the password of Login's user.
func (c *Client) askLogin(ctx context.Context, user, host string) (string, error) {
	if c.Prompt == nil {
		return "", Errorf(ErrAuth, "-u %s gives no password, and there is no terminal to ask for it: give -u %s:PASSWORD, or store it in ~/.netrc (machine %s login %s password PASSWORD)", user, user, host, user)
	}
	pw, err := c.Prompt(ctx, fmt.Sprintf("Password for %s (all URLs): ", user))
	if err != nil {
		return "", Errorf(ErrAuth, "asking for the password of %s: %w", user, err)
	}
	return pw, nil
}

// machinePassword finds the password of user at r.URL's host: netrc's
// machine entry for the host and user, else the prompt.
func (r *Request) machinePassword(ctx context.Context, user string) (string, error) {
	host := r.URL.Host
	login, pw, ok, err := r.netrcMachine(host, user)
	if err != nil {
		return "", err
	}
	if ok && (login == "" || login == user) {
		return pw, nil
	}
	return r.askPassword(ctx, host, user)
}

// netrcMachine returns netrc's machine entry for host (and user, when not
// ""), never the default entry (see Credentials). A netrc file named but
// missing ($NETRC, --netrc-file) has none to give: Credentials looks for
// one for every http request, needed or not, and an error there would
// fail every fetch. Any other failure to read the file is an ErrAuth
// error.
func (r *Request) netrcMachine(host, user string) (login, password string, ok bool, err error) {
	login, password, ok, err = r.netrcLogin(host, user, false)
	if errors.Is(err, os.ErrNotExist) {
		r.Tracef(Note, "%v: no credentials from it", err)
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, Errorf(ErrAuth, "reading netrc: %w", err)
	}
	return login, password, ok, nil
}

// keep records the credentials of the user's URL for the hops on its
// server (see Follow).
func (r *Request) keep(user, password string) {
	if r.UserOrigin() {
		r.creds = &credentials{user, password}
	}
}
