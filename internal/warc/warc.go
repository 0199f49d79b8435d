// Package warc writes WARC 1.1 files (ISO 28500:2017, "The WARC File
// Format 1.1"), each record its own gzip member (Annex D), so that a
// reader can start at any record. It writes what fetch archives: a
// warcinfo record naming the tool, "resource" records for what ftp,
// gopher, news, wais and file: URLs give (listings as their raw bytes),
// and "request" and "response" records for HTTP.
//
// The writer is small enough to be written here (section 5: a version
// line, named fields, a block, two CRLFs); the tests read every record
// back with an independent reader, github.com/nlnwa/gowarc, and check its
// digests.
package warc

import (
	"bufio"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Record types (section 6).
const (
	Warcinfo = "warcinfo"
	Resource = "resource"
	Request  = "request"
	Response = "response"
)

// Content types of HTTP records' blocks (section 6.4, 6.5) and of a
// warcinfo record's.
const (
	HTTPRequestType  = "application/http;msgtype=request"
	HTTPResponseType = "application/http;msgtype=response"
	FieldsType       = "application/warc-fields"
)

// A Header is what a record says of its block beyond the fields the
// Writer fills in (WARC-Record-ID, Content-Length, WARC-Block-Digest).
type Header struct {
	Type        string
	TargetURI   string // WARC-Target-URI
	Date        time.Time
	ContentType string
	// ConcurrentTo is the WARC-Record-ID of a record made at the same
	// time (a response's request), "" for none.
	ConcurrentTo string
	// PayloadOffset, for a response record, is where the payload (the
	// HTTP body) begins in the block, for WARC-Payload-Digest; -1 for
	// none.
	PayloadOffset int64
	// Fields are more named fields, in order.
	Fields [][2]string
}

// A Block is a record's content, which the Writer reads twice: once for
// its digests, which come before it in the record, and once to write it.
// Open returns a reader of its Size bytes from the start.
type Block struct {
	Size int64
	Open func() (io.ReadCloser, error)
}

// BytesBlock is a Block of b.
func BytesBlock(b []byte) Block {
	return Block{Size: int64(len(b)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(string(b))), nil
	}}
}

// A Writer writes records to one WARC file, one gzip member each. It is
// safe for concurrent use: records are written whole, one after another.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteInfo writes the warcinfo record (section 6.2) that opens a file:
// the software that wrote it and the fields given (name: value).
func (w *Writer) WriteInfo(software string, fields ...[2]string) (string, error) {
	var b strings.Builder
	b.WriteString("software: " + software + "\r\n")
	b.WriteString("format: WARC File Format 1.1\r\n")
	b.WriteString("conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n")
	for _, f := range fields {
		b.WriteString(f[0] + ": " + oneLine(f[1]) + "\r\n")
	}
	return w.Write(Header{Type: Warcinfo, Date: time.Now(), ContentType: FieldsType, PayloadOffset: -1}, BytesBlock([]byte(b.String())))
}

// Write writes one record and returns its WARC-Record-ID.
func (w *Writer) Write(h Header, block Block) (string, error) {
	blockDigest, payloadDigest, err := digests(block, h.PayloadOffset)
	if err != nil {
		return "", err
	}
	id, err := newID()
	if err != nil {
		return "", err
	}
	var head strings.Builder
	field := func(name, value string) { head.WriteString(name + ": " + oneLine(value) + "\r\n") }
	head.WriteString("WARC/1.1\r\n")
	field("WARC-Type", h.Type)
	field("WARC-Record-ID", id)
	field("WARC-Date", h.Date.UTC().Format("2006-01-02T15:04:05.000000Z"))
	if h.TargetURI != "" {
		field("WARC-Target-URI", h.TargetURI)
	}
	if h.ConcurrentTo != "" {
		field("WARC-Concurrent-To", h.ConcurrentTo)
	}
	if h.ContentType != "" {
		field("Content-Type", h.ContentType)
	}
	field("WARC-Block-Digest", blockDigest)
	if payloadDigest != "" {
		field("WARC-Payload-Digest", payloadDigest)
	}
	for _, f := range h.Fields {
		field(f[0], f[1])
	}
	field("Content-Length", strconv.FormatInt(block.Size, 10))
	head.WriteString("\r\n")

	r, err := block.Open()
	if err != nil {
		return "", err
	}
	defer r.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return "", w.err
	}
	// One gzip member per record (Annex D.2).
	bw := bufio.NewWriterSize(w.w, 64<<10)
	zw := gzip.NewWriter(bw)
	_, err = io.WriteString(zw, head.String())
	if err == nil {
		var n int64
		n, err = io.Copy(zw, r)
		if err == nil && n != block.Size {
			err = fmt.Errorf("warc: the block of %s changed: %d bytes, %d when its digest was made", h.TargetURI, n, block.Size)
		}
	}
	if err == nil {
		_, err = io.WriteString(zw, "\r\n\r\n")
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		// A record half written spoils what follows it.
		w.err = fmt.Errorf("warc: writing a record of %s: %w", h.TargetURI, err)
		return "", w.err
	}
	return id, nil
}

// digests reads block once and returns its SHA-1 digest in the labelled
// base32 form readers expect ("sha1:..."), and the payload's from
// payloadOffset on when that is not negative.
func digests(block Block, payloadOffset int64) (blockDigest, payloadDigest string, err error) {
	r, err := block.Open()
	if err != nil {
		return "", "", err
	}
	defer r.Close()
	bh := sha1.New()
	var ph hash.Hash
	if payloadOffset >= 0 {
		ph = sha1.New()
		if _, err := io.CopyN(bh, r, payloadOffset); err != nil {
			return "", "", fmt.Errorf("warc: reading a block for its digest: %w", err)
		}
		r = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(r, ph), r}
	}
	n, err := io.Copy(bh, r)
	if err != nil {
		return "", "", fmt.Errorf("warc: reading a block for its digest: %w", err)
	}
	if n+max(payloadOffset, 0) != block.Size {
		return "", "", fmt.Errorf("warc: a block of %d bytes, said to be %d", n+max(payloadOffset, 0), block.Size)
	}
	blockDigest = label(bh)
	if ph != nil {
		payloadDigest = label(ph)
	}
	return blockDigest, payloadDigest, nil
}

func label(h hash.Hash) string {
	return "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil))
}

// newID is a record ID (section 5.2): a random (version 4) UUID URN.
func newID() (string, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return "", err
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]), nil
}

// oneLine keeps a field's value on its line: a CR or LF in it (a URL a
// server chose cannot hold one, but a title could) would start a field
// of its own.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
