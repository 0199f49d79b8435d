package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
)

// tlsOptions are the TLS settings of every scheme that has TLS (https,
// ftps and FTP's AUTH TLS, nntps, snews and NNTP's STARTTLS, SMTP's
// STARTTLS): one fetch.Client.TLSConfig, with curl's names.
func tlsOptions() driverOption {
	return driverOption{
		title: "TLS",
		flags: []cli.Flag{
			&cli.BoolFlag{Name: "ssl", Usage: "turn FTP and NNTP connections to TLS (AUTH TLS, STARTTLS), going on in cleartext when the server cannot"},
			&cli.BoolFlag{Name: "ssl-reqd", Usage: "as --ssl, but fail (exit 11) when the server cannot, before any password is sent; SMTP too"},
			&cli.BoolFlag{Name: "insecure", Aliases: []string{"k"}, Usage: "do not verify servers' certificates (a test server's self-signed one): anyone on the path can read and change the transfer"},
			&cli.StringFlag{Name: "cacert", Usage: "trust the certificate authorities in PEM `FILE` in place of the system's"},
			&cli.StringFlag{Name: "capath", Usage: "trust the certificate authorities in the PEM files of `DIR` (with --cacert's, in place of the system's)"},
			&cli.StringFlag{Name: "cert", Usage: "present the client certificate in PEM `FILE` (its key too, unless --key names another file)"},
			&cli.StringFlag{Name: "key", Usage: "the private key of --cert, in PEM `FILE`"},
		},
		configure: func(c *cli.Context, cl *fetch.Client, _ *all.Drivers) error {
			return configureTLS(c, cl)
		},
	}
}

// configureTLS sets the Client's TLS configuration and upgrade policy.
func configureTLS(c *cli.Context, cl *fetch.Client) error {
	switch {
	case c.Bool("ssl-reqd"):
		cl.TLSUpgrade = fetch.UpgradeRequire
	case c.Bool("ssl"):
		cl.TLSUpgrade = fetch.UpgradeTry
	}
	cfg, err := tlsConfig(c.Bool("insecure"), c.String("cacert"), c.String("capath"), c.String("cert"), c.String("key"))
	if err != nil {
		return cli.Exit(err.Error(), exitUsage)
	}
	cl.TLSConfig = cfg
	return nil
}

// tlsConfig builds the TLS configuration of the options; nil when none is
// set, for the system's roots.
func tlsConfig(insecure bool, caFile, caDir, certFile, keyFile string) (*tls.Config, error) {
	if !insecure && caFile == "" && caDir == "" && certFile == "" && keyFile == "" {
		return nil, nil
	}
	cfg := &tls.Config{InsecureSkipVerify: insecure}
	if caFile != "" || caDir != "" {
		pool := x509.NewCertPool()
		if caFile != "" {
			if err := addPEM(pool, caFile); err != nil {
				return nil, fmt.Errorf("--cacert: %w", err)
			}
		}
		if caDir != "" {
			files, err := os.ReadDir(caDir)
			if err != nil {
				return nil, fmt.Errorf("--capath: %w", err)
			}
			n := 0
			for _, f := range files {
				if f.IsDir() {
					continue
				}
				if addPEM(pool, filepath.Join(caDir, f.Name())) == nil {
					n++
				}
			}
			if n == 0 {
				return nil, fmt.Errorf("--capath: no PEM certificate in %s", caDir)
			}
		}
		cfg.RootCAs = pool
	}
	switch {
	case certFile != "":
		if keyFile == "" {
			keyFile = certFile
		}
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("--cert %s, --key %s: %w", certFile, keyFile, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case keyFile != "":
		return nil, fmt.Errorf("--key needs --cert: the certificate of the key")
	}
	return cfg, nil
}

// addPEM adds the certificates of the PEM file name to pool.
func addPEM(pool *x509.CertPool, name string) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if !pool.AppendCertsFromPEM(b) {
		return fmt.Errorf("%s holds no PEM certificate", name)
	}
	return nil
}
