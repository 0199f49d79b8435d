package nntp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"iter"
	"math"
	"mime"
	"net"
	"net/mail"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// overviewEntries parses a group listing's Body, overview lines (RFC
// 3977 section 8.3), into article entries.
func (t *target) overviewEntries(r io.Reader) iter.Seq2[fetch.Entry, error] {
	return func(yield func(fetch.Entry, error) bool) {
		var dec mime.WordDecoder
		eachLine(r, func(line []byte, err error) bool {
			if err != nil {
				return yield(fetch.Entry{}, err)
			}
			return yield(t.overviewEntry(string(line), &dec))
		})
	}
}

// overviewEntry parses one overview line: number, subject, from, date,
// message-id, references, bytes, lines, and perhaps more fields.
func (t *target) overviewEntry(line string, dec *mime.WordDecoder) (fetch.Entry, error) {
	f := strings.Split(line, "\t")
	if len(f) < 5 {
		return fetch.Entry{}, fetch.Errorf(fetch.ErrProtocol, "nntp: overview line %q has %d fields, want number, subject, from, date, message-id and more", clip(line), len(f))
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n <= 0 {
		return fetch.Entry{}, fetch.Errorf(fetch.ErrProtocol, "nntp: overview line %q does not begin with an article number", clip(line))
	}
	e := fetch.Entry{
		Name:  f[0],
		Type:  fetch.EntryArticle,
		Size:  -1,
		Media: ArticleType,
		Title: decodeWords(dec, f[1]),
		URL:   t.articleURL(n, f[4]),
	}
	if from := decodeWords(dec, f[2]); from != "" {
		e.Title += " (" + from + ")"
	}
	if tm, err := mail.ParseDate(f[3]); err == nil {
		e.Time = tm
	}
	if len(f) > 6 {
		if size, err := strconv.ParseInt(strings.TrimSpace(f[6]), 10, 64); err == nil && size >= 0 {
			e.Size = size
		}
	}
	return e, nil
}

// decodeWords decodes the RFC 2047 encoded words of a header field, or
// leaves the field as it is when they cannot be decoded.
func decodeWords(dec *mime.WordDecoder, s string) string {
	if !strings.Contains(s, "=?") {
		return s
	}
	if d, err := dec.DecodeHeader(s); err == nil {
		return d
	}
	return s
}

// articleURL is the URL of article n of the listed group: its news:
// URL by message-id for a news: listing, its nntp: URL by number for an
// nntp: one, or for a message-id that no news: URL can carry. A TLS
// listing's (snews:, nntps:) are snews: and nntps: URLs: a listing read
// over TLS leads to articles read over TLS.
func (t *target) articleURL(n int64, messageID string) string {
	if t.scheme == "news" || t.scheme == "snews" {
		id := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(messageID), "<"), ">")
		if s, ok := newsArticleURL(id, t.secure); ok {
			return s
		}
	}
	return (&uri.NNTP{Secure: t.secure, Login: t.serverLogin(), Group: t.group, Article: n}).String()
}

// newsArticleURL returns news:<id> (snews:<id> when secure), if it is a
// URL that parses back to id. uri.Parse wants a host name after the "@",
// which message-ids need not have ("<x@[127.0.0.1]>").
func newsArticleURL(id string, secure bool) (string, bool) {
	at := strings.LastIndexByte(id, '@')
	// Issue 12: an id with white space is one the driver refuses to ask
	// for (target.check); its article is asked for by number.
	if at <= 0 || at == len(id)-1 || strings.ContainsAny(id, "\r\n\x00 \t") {
		return "", false
	}
	s := (&uri.News{Secure: secure, MessageID: id}).String()
	u, err := uri.Parse(s)
	if err != nil {
		return "", false
	}
	if n, err := u.News(); err != nil || n.MessageID != id {
		return "", false
	}
	return s, true
}

// serverLogin is the host and port of nntp (or nntps) URLs to t's
// server: the URL's own for an nntp URL, the news server's for a news
// URL, without the port when it is the scheme's default.
func (t *target) serverLogin() uri.Login {
	if t.scheme == "nntp" || t.scheme == "nntps" {
		return t.login
	}
	host, port, _ := net.SplitHostPort(t.addr)
	l := uri.Login{Host: host}
	def := DefaultPort
	if t.secure {
		def = DefaultTLSPort
	}
	if p, _ := strconv.Atoi(port); p != def {
		l.Port = p
	}
	return l
}

// activeEntries parses the list of groups, LIST ACTIVE lines (RFC 3977
// section 7.6.3): "group high low status".
func (t *target) activeEntries(r io.Reader) iter.Seq2[fetch.Entry, error] {
	return func(yield func(fetch.Entry, error) bool) {
		eachLine(r, func(line []byte, err error) bool {
			if err != nil {
				return yield(fetch.Entry{}, err)
			}
			return yield(t.activeEntry(string(line)))
		})
	}
}

func (t *target) activeEntry(line string) (fetch.Entry, error) {
	f := strings.Fields(line)
	if len(f) < 4 {
		return fetch.Entry{}, fetch.Errorf(fetch.ErrProtocol, "nntp: active line %q has %d fields, want group, high, low and status", clip(line), len(f))
	}
	high, err1 := strconv.ParseInt(f[1], 10, 64)
	low, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || high < 0 || low < 0 {
		return fetch.Entry{}, fetch.Errorf(fetch.ErrProtocol, "nntp: active line %q: high and low are not article numbers", clip(line))
	}
	// Both are 0 to 2^63-1: high-low+1 cannot overflow but at high =
	// 2^63-1 and low = 0, which the max of the two bounds.
	count := int64(0)
	if high >= low {
		count = high - low
		if count < math.MaxInt64 {
			count++
		}
	}
	articles := "articles"
	if count == 1 {
		articles = "article"
	}
	e := fetch.Entry{
		Name:  f[0],
		Type:  fetch.EntryGroup,
		Size:  -1,
		Title: fmt.Sprintf("%d %s, %s", count, articles, postingStatus(f[3])),
	}
	if s, ok := newsGroupURL(f[0], t.secure); ok && (t.scheme == "news" || t.scheme == "snews") {
		e.URL = s
	} else {
		e.URL = (&uri.NNTP{Secure: t.secure, Login: t.serverLogin(), Group: f[0]}).String()
	}
	return e, nil
}

// newsGroupURL returns news:group (snews:group when secure), if it is a
// URL that lists the group. Issue 12: a news: URL with "@" is an article,
// and one with a wildmat character a list of groups; a group so named
// gets an nntp: URL.
func newsGroupURL(group string, secure bool) (string, bool) {
	if strings.IndexByte(group, '@') >= 0 || isWildmat(group) {
		return "", false
	}
	return (&uri.News{Secure: secure, Group: group}).String(), true
}

// postingStatus describes the status field of an active line.
func postingStatus(s string) string {
	switch {
	case s == "y":
		return "posting allowed"
	case s == "n":
		return "no posting"
	case s == "m":
		return "moderated"
	case s == "x":
		return "no posting or feeding"
	case s == "j":
		return "articles filed in junk"
	case strings.HasPrefix(s, "="):
		return "an alias of " + s[1:]
	}
	return "status " + s
}

// eachLine calls fn with each non-empty line of r, without its line end,
// and with an error for a line longer than maxLine (skipped) or a failed
// read (the last call; the part of a line read before it is no line). It
// stops when fn returns false.
func eachLine(r io.Reader, fn func(line []byte, err error) bool) {
	br := bufio.NewReaderSize(r, maxLine)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			if !fn(nil, fetch.Errorf(fetch.ErrProtocol, "nntp: listing line %d is longer than %d bytes", n, maxLine)) {
				return
			}
		} else if line = bytes.TrimRight(line, "\r\n"); len(line) > 0 && (err == nil || err == io.EOF) {
			if !fn(line, nil) {
				return
			}
		}
		switch {
		case err == io.EOF:
			return
		case err != nil:
			fn(nil, err)
			return
		}
	}
}
