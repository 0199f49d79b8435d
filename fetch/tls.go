package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"

	"github.com/urlfetch/urlfetch/uri"
)

// CertificateError is a server certificate that did not verify. The
// fetch command adds how to trust it (--cacert, -k).
type CertificateError struct {
	Host string // the name the certificate was checked against
	Err  error  // crypto/x509's reason
}

func (e *CertificateError) Error() string {
	return fmt.Sprintf("the certificate of %s is not trusted: %v", e.Host, e.Err)
}

func (e *CertificateError) Unwrap() []error { return []error{ErrTLS, e.Err} }

// Upgrade says whether a driver whose protocol starts in cleartext and can
// turn to TLS on the same connection (FTP's AUTH TLS, NNTP's and SMTP's
// STARTTLS) asks for it: curl's --ssl and --ssl-reqd. The TLS schemes
// (ftps, nntps, snews) use TLS from the first byte whatever it says.
type Upgrade int

const (
	// UpgradeDefault is each protocol's habit: SMTP turns to TLS when
	// the server offers STARTTLS; FTP and NNTP stay in cleartext.
	UpgradeDefault Upgrade = iota
	// UpgradeTry asks for TLS and goes on in cleartext when the server
	// refuses it (--ssl).
	UpgradeTry
	// UpgradeRequire asks for TLS and fails with ErrTLS, before any
	// password is sent, when the server refuses it (--ssl-reqd).
	UpgradeRequire
)

// TLSUpgrade is the Client's Upgrade, for the driver of r.
func (r *Request) TLSUpgrade() Upgrade { return r.cl().TLSUpgrade }

// tlsState is what a Client keeps for TLS: the base configuration, made
// once, whose session cache every connection shares, so that an FTP data
// connection resumes the session of its control connection (RFC 4217
// section 10.2; vsftpd requires it) and a second connection to a server
// skips the full handshake.
type tlsState struct {
	once sync.Once
	base *tls.Config
}

// tlsBase returns the Client's TLS configuration: a copy of TLSConfig (or
// a new one), with a session cache and TLS 1.2 at least.
func (c *Client) tlsBase() *tls.Config {
	c.tls.once.Do(func() {
		cfg := &tls.Config{}
		if c.TLSConfig != nil {
			cfg = c.TLSConfig.Clone()
		}
		if cfg.ClientSessionCache == nil {
			cfg.ClientSessionCache = tls.NewLRUClientSessionCache(0)
		}
		if cfg.MinVersion == 0 {
			cfg.MinVersion = tls.VersionTLS12
		}
		c.tls.base = cfg
	})
	return c.tls.base
}

// TLSConfig returns the TLS configuration of a connection to host: the
// Client's TLSConfig (see there) with ServerName set to host unless it
// names one. Every driver's TLS starts here, so the settings of
// Client.TLSConfig hold for every scheme. A host name in Unicode is sent
// (SNI) and verified by its A-labels (uri.ASCIIHost): the names a
// certificate holds are in A-labels (RFC 6125 section 6.4.2).
func (r *Request) TLSConfig(host string) *tls.Config {
	cfg := r.cl().tlsBase().Clone()
	if cfg.ServerName == "" {
		name := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if a, err := uri.ASCIIHost(name); err == nil {
			name = a
		}
		cfg.ServerName = name
	}
	return cfg
}

// StartTLS runs the TLS handshake as the client over c (a new connection
// for implicit TLS, or one where STARTTLS or AUTH TLS was accepted),
// checking the server's certificate against host, and traces the result.
// The returned connection reads and writes through c, so c's idle timeout
// and context binding still hold. cfg is nil for the Request's own
// (TLSConfig(host)); a driver passes one to share a session between
// connections.
func (r *Request) StartTLS(ctx context.Context, c net.Conn, host string, cfg *tls.Config) (*tls.Conn, error) {
	if cfg == nil {
		cfg = r.TLSConfig(host)
	}
	tc := tls.Client(c, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, r.TLSError(ctx, cfg.ServerName, err)
	}
	r.TraceTLS(tc.ConnectionState())
	return tc, nil
}

// TLSError classifies a failed handshake with host: a certificate that
// does not verify is a *CertificateError, a timeout ErrTimeout, a
// connection closed in the middle ErrConnect, anything else (an alert, no
// common version or cipher) ErrTLS.
//
// Errors name host in Unicode (uri.UnicodeHost) where it is in A-labels.
func (r *Request) TLSError(ctx context.Context, host string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	host = uri.UnicodeHost(host)
	if Class(err) != nil && !errors.Is(err, ErrTLS) {
		return err // the idle timeout's ErrTimeout, ...
	}
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	switch {
	case errors.As(err, &cv):
		return &CertificateError{Host: host, Err: cv.Err}
	case errors.As(err, &ua), errors.As(err, &he), errors.As(err, &ci):
		return &CertificateError{Host: host, Err: err}
	case ConnBroken(err):
		return Errorf(ErrConnect, "TLS handshake with %s: the connection broke: %w", host, err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Errorf(ErrTimeout, "TLS handshake with %s: timed out: %w", host, err)
	}
	return Errorf(ErrTLS, "TLS handshake with %s: %w", host, err)
}

// TraceTLS traces what a handshake gave: the version, the cipher suite,
// whether the session was resumed, and the subject and issuer of the
// server's certificate, as curl -v shows them.
func (r *Request) TraceTLS(st tls.ConnectionState) {
	if !r.Tracing() {
		return
	}
	line := fmt.Sprintf("TLS: %s, %s", tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite))
	if st.NegotiatedProtocol != "" {
		line += ", ALPN " + st.NegotiatedProtocol
	}
	if st.DidResume {
		line += ", session resumed"
	}
	r.Trace(Note, line)
	if len(st.PeerCertificates) > 0 {
		cert := st.PeerCertificates[0]
		r.Tracef(Note, "TLS certificate: subject %q, issuer %q, valid until %s", cert.Subject.String(), cert.Issuer.String(), cert.NotAfter.UTC().Format("2006-01-02"))
	}
}
