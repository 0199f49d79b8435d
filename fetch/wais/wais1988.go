package wais

import (
	"bytes"
	"fmt"

	"github.com/urlfetch/urlfetch/internal/waiswire"
)

// This file is the codec of classic WAIS: the 1988 draft of Z39.50 as
// WAIS servers speak it. It is not BER. Every message is a 25-byte ASCII
// header and an APDU; inside the APDU every field is a tag-length-value
// triple whose tag and length are compressed integers. That framing is
// internal/waiswire's, which the tests' misbehaving servers share; here
// are the APDUs. The wire format is described in the project's notes on
// WAIS (from captures of freeWAIS-sf); section numbers in comments refer
// to them.

// PDU types of the 1988 draft (the first byte of the Z39.50 part).
const (
	pduInit           = 20
	pduInitResponse   = 21
	pduSearch         = 22
	pduSearchResponse = 23
)

// Data-element tags used in the Z39.50 part (notes §3).
const (
	tagReferenceID     = 2
	tagProtocolVersion = 3
	tagOptions         = 4
	tagPreferredSize   = 5
	tagMaxRecordSize   = 6
	tagIDAuth          = 7
	tagImplID          = 8
	tagImplName        = 9
	tagImplVersion     = 10
	tagResultSetName   = 17
	tagDatabaseNames   = 18
	tagElementSetNames = 19
	tagQueryType       = 20
	tagQuery           = 21
	tagResultSetStatus = 26
	tagPresentStatus   = 27
	tagDiagnostic      = 28
	tagAttributeList   = 44
	tagTerm            = 45
	tagOperator        = 46
)

// WAIS extension tags (notes §3, second table).
const (
	tagUserInfo      = 99
	tagChunkCode     = 100
	tagChunkIDLength = 101
	tagSeedWords     = 106
	tagDateFactor    = 111
	tagMaxDocuments  = 114
	tagSeedWordsUsed = 115
	tagDocID         = 116
	tagVersion       = 117
	tagScore         = 118
	tagBestMatch     = 119
	tagDocLength     = 120
	tagSource        = 121
	tagDate          = 122
	tagHeadline      = 123
	tagOriginCity    = 124
	tagDocText       = 127
	tagLines         = 131
	tagTypeBlock     = 132
	tagType          = 133
	tagDocHeader     = 150
	tagDocTextGroup  = 153
)

// diagnosticEnd is the byte that follows a diagnostic record, outside its
// length (notes §2.9).
const diagnosticEnd = 0x1d

// databaseSeparator joins several database names in one field.
const databaseSeparator = 0x1f

// waisError is a decoding error: what was wrong, wrapping waiswire.ErrWAIS.
func waisError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", waiswire.ErrWAIS, fmt.Sprintf(format, args...))
}

// numBytes encodes a number value: minimal big-endian bytes, at least
// one; a negative number takes four (notes §2.3).
func numBytes(v int64) []byte {
	if v < 0 {
		u := uint32(int32(v))
		return []byte{byte(u >> 24), byte(u >> 16), byte(u >> 8), byte(u)}
	}
	var b []byte
	for {
		b = append([]byte{byte(v)}, b...)
		v >>= 8
		if v == 0 {
			return b
		}
	}
}

// parseNum decodes a number value of one to four bytes; four bytes are
// read as a signed 32-bit number.
func parseNum(b []byte) (int64, error) {
	switch len(b) {
	case 1, 2, 3:
		var v int64
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		return v, nil
	case 4:
		return int64(int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))), nil
	}
	return 0, waisError("number of %d bytes", len(b))
}

// num is an optional number field.
type num struct {
	V  int64
	OK bool
}

func some(v int64) num { return num{V: v, OK: true} }

func appendNum(b []byte, tag int, n num) []byte {
	if !n.OK {
		return b
	}
	return waiswire.AppendTLV(b, tag, numBytes(n.V))
}

// get3 and put3 read and write the fixed 3-byte counters of the search
// APDUs.
func get3(b []byte) int { return int(b[0])<<16 | int(b[1])<<8 | int(b[2]) }

func put3(b []byte, v int) []byte {
	if v < 0 || v > 0xffffff {
		v = 0xffffff
	}
	return append(b, byte(v>>16), byte(v>>8), byte(v))
}

// field is one decoded TLV, or a diagnostic record (tag 28).
type field struct {
	tag  int
	val  []byte
	diag *Diagnostic
}

// maxItems bounds the fields of one TLV sequence, and the elements of one
// BER constructed element, that a reply may hold: a bound on their count,
// not only on the message's bytes, for a 4 MiB message of five-byte
// document headers decodes into gigabytes. A search asks for at most
// MaxHits documents; no reply of a sane server comes near it.
const maxItems = 1 << 14

// fields decodes a sequence of TLVs, every length checked against what
// remains, at most maxItems of them.
func fields(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		if len(out) == maxItems {
			return nil, waisError("more than %d fields in one sequence", maxItems)
		}
		tag, n, err := waiswire.ReadCInt(b)
		if err != nil {
			return nil, err
		}
		b = b[n:]
		if tag == tagDiagnostic {
			d, rest, err := parseDiagnostic(b)
			if err != nil {
				return nil, err
			}
			out = append(out, field{tag: tag, diag: d})
			b = rest
			continue
		}
		l, n, err := waiswire.ReadCInt(b)
		if err != nil {
			return nil, err
		}
		b = b[n:]
		if l > len(b) {
			return nil, waisError("field %d claims %d bytes, %d remain", tag, l, len(b))
		}
		out = append(out, field{tag: tag, val: b[:l:l]})
		b = b[l:]
	}
	return out, nil
}

// parseDiagnostic decodes the diagnostic record after its tag: a 2-byte
// length L, a 2-byte code, L-3 bytes of text, a surrogate byte, and the
// end byte 0x1d outside L (notes §2.9). It returns what follows.
func parseDiagnostic(b []byte) (*Diagnostic, []byte, error) {
	if len(b) < 2 {
		return nil, nil, waisError("diagnostic record cut short")
	}
	l := int(b[0])<<8 | int(b[1])
	b = b[2:]
	if l < 3 || l > len(b) {
		return nil, nil, waisError("diagnostic record claims %d bytes, %d remain", l, len(b))
	}
	d := &Diagnostic{Dialect: DialectWAIS, Code: string(b[:2]), AddInfo: string(b[2 : l-1]), Surrogate: b[l-1]}
	b = b[l:]
	if len(b) > 0 && b[0] == diagnosticEnd {
		b = b[1:]
	}
	return d, b, nil
}

// appendDiagnostic appends a diagnostic record with its tag.
func appendDiagnostic(b []byte, d *Diagnostic) []byte {
	code := (d.Code + "  ")[:2]
	l := 2 + len(d.AddInfo) + 1
	b = append(b, tagDiagnostic, byte(l>>8), byte(l))
	b = append(b, code...)
	b = append(b, d.AddInfo...)
	return append(b, d.Surrogate, diagnosticEnd)
}

// userInfo unwraps the tag-99 WAIS part; an empty part is no fields.
func userInfo(w []byte) ([]field, error) {
	if len(w) == 0 {
		return nil, nil
	}
	fs, err := fields(w)
	if err != nil {
		return nil, err
	}
	if len(fs) != 1 || fs[0].tag != tagUserInfo {
		return nil, waisError("WAIS part is not one user-information field (tag 99)")
	}
	return fields(fs[0].val)
}

// waisInit is an Init (type 20) or Init-response (type 21) APDU (notes §4.1).
type waisInit struct {
	Response    bool // Init-response
	Accepted    bool // Init-response: the result byte is 1
	Version     []byte
	Options     []byte
	Preferred   num
	MaxRecord   num
	IDAuth      string
	ImplID      string
	ImplName    string
	ImplVersion string
	RefID       []byte
	// UserInfo is the raw WAIS part of an Init-response
	// (63 06 64 01 00 65 01 00 from freeWAIS).
	UserInfo []byte
}

func (m *waisInit) marshal() []byte {
	z := []byte{pduInit}
	if m.Response {
		z[0] = pduInitResponse
		z = append(z, boolByte(m.Accepted))
	}
	z = waiswire.AppendTLV(z, tagProtocolVersion, m.Version)
	z = waiswire.AppendTLV(z, tagOptions, m.Options)
	z = appendNum(z, tagPreferredSize, m.Preferred)
	z = appendNum(z, tagMaxRecordSize, m.MaxRecord)
	for _, f := range []struct {
		tag int
		v   string
	}{{tagIDAuth, m.IDAuth}, {tagImplID, m.ImplID}, {tagImplName, m.ImplName}, {tagImplVersion, m.ImplVersion}} {
		if f.v != "" {
			z = waiswire.AppendTLVString(z, f.tag, f.v)
		}
	}
	if m.RefID != nil {
		z = waiswire.AppendTLV(z, tagReferenceID, m.RefID)
	}
	return waiswire.JoinAPDU(z, m.UserInfo)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func decodeInit(z, w []byte) (*waisInit, error) {
	m := &waisInit{Response: z[0] == pduInitResponse}
	z = z[1:]
	if m.Response {
		if len(z) < 1 {
			return nil, waisError("Init-response without its result byte")
		}
		m.Accepted = z[0] == 1
		z = z[1:]
		if _, err := userInfo(w); err != nil {
			return nil, err
		}
		m.UserInfo = w
	} else if len(w) > 0 {
		return nil, waisError("Init with a WAIS part")
	}
	fs, err := fields(z)
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		var err error
		switch f.tag {
		case tagProtocolVersion:
			m.Version = f.val
		case tagOptions:
			m.Options = f.val
		case tagPreferredSize:
			m.Preferred.V, err = parseNum(f.val)
			m.Preferred.OK = true
		case tagMaxRecordSize:
			m.MaxRecord.V, err = parseNum(f.val)
			m.MaxRecord.OK = true
		case tagIDAuth:
			m.IDAuth = string(f.val)
		case tagImplID:
			m.ImplID = string(f.val)
		case tagImplName:
			m.ImplName = string(f.val)
		case tagImplVersion:
			m.ImplVersion = string(f.val)
		case tagReferenceID:
			m.RefID = f.val
		}
		if err != nil {
			return nil, err
		}
	}
	return m, nil
}

// rpnItem is one element of a retrieval query in postfix order: an
// operand (attribute list and term) or an operator (notes §4.4).
type rpnItem struct {
	Attrs string
	Term  []byte
	Op    string // "a", "o" or "n" for an operator; "" for an operand
}

// waisSearch is a Search APDU (type 22): a keyword search with query type
// "3" (notes §4.2) or a document retrieval with query type "1" (§4.4).
type waisSearch struct {
	SmallSet, LargeSet, MediumSet int
	Replace                       bool
	ResultSet                     string
	Databases                     []string
	QueryType                     string
	ElementSets                   []byte // raw field 19, if any
	RefID                         []byte

	// Query type "3": the WAIS part.
	SeedWords  string
	DateFactor num
	MaxDocs    num
	// Query type "1": the retrieval query.
	Query []rpnItem
}

func (m *waisSearch) marshal() []byte {
	z := []byte{pduSearch}
	z = put3(z, m.SmallSet)
	z = put3(z, m.LargeSet)
	z = put3(z, m.MediumSet)
	z = append(z, boolByte(m.Replace))
	z = waiswire.AppendTLVString(z, tagResultSetName, m.ResultSet)
	z = waiswire.AppendTLV(z, tagDatabaseNames, bytes.Join(stringsToBytes(m.Databases), []byte{databaseSeparator}))
	z = waiswire.AppendTLVString(z, tagQueryType, m.QueryType)
	if m.ElementSets != nil {
		z = waiswire.AppendTLV(z, tagElementSetNames, m.ElementSets)
	}
	if m.RefID != nil {
		z = waiswire.AppendTLV(z, tagReferenceID, m.RefID)
	}
	var w []byte
	if m.QueryType == "1" {
		var q []byte
		for _, it := range m.Query {
			if it.Op != "" {
				q = waiswire.AppendTLVString(q, tagOperator, it.Op)
				continue
			}
			q = waiswire.AppendTLVString(q, tagAttributeList, it.Attrs)
			q = waiswire.AppendTLV(q, tagTerm, it.Term)
		}
		w = waiswire.AppendTLV(nil, tagQuery, q)
	} else {
		var u []byte
		u = waiswire.AppendTLVString(u, tagSeedWords, m.SeedWords)
		u = appendNum(u, tagDateFactor, m.DateFactor)
		u = appendNum(u, tagMaxDocuments, m.MaxDocs)
		w = waiswire.AppendTLV(nil, tagUserInfo, u)
	}
	return waiswire.JoinAPDU(z, w)
}

func stringsToBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func decodeSearch(z, w []byte) (*waisSearch, error) {
	if len(z) < 11 {
		return nil, waisError("Search of %d bytes", len(z))
	}
	m := &waisSearch{SmallSet: get3(z[1:]), LargeSet: get3(z[4:]), MediumSet: get3(z[7:]), Replace: z[10] == 1}
	fs, err := fields(z[11:])
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		switch f.tag {
		case tagResultSetName:
			m.ResultSet = string(f.val)
		case tagDatabaseNames:
			for _, d := range bytes.Split(f.val, []byte{databaseSeparator}) {
				m.Databases = append(m.Databases, string(d))
			}
		case tagQueryType:
			m.QueryType = string(f.val)
		case tagElementSetNames:
			m.ElementSets = f.val
		case tagReferenceID:
			m.RefID = f.val
		}
	}
	if m.QueryType == "1" {
		ws, err := fields(w)
		if err != nil {
			return nil, err
		}
		if len(ws) != 1 || ws[0].tag != tagQuery {
			return nil, waisError("retrieval Search without its query (tag 21)")
		}
		q, err := fields(ws[0].val)
		if err != nil {
			return nil, err
		}
		for i := 0; i < len(q); i++ {
			switch q[i].tag {
			case tagOperator:
				m.Query = append(m.Query, rpnItem{Op: string(q[i].val)})
			case tagAttributeList:
				if i+1 >= len(q) || q[i+1].tag != tagTerm {
					return nil, waisError("attribute list without a term")
				}
				m.Query = append(m.Query, rpnItem{Attrs: string(q[i].val), Term: q[i+1].val})
				i++
			default:
				return nil, waisError("query field %d", q[i].tag)
			}
		}
		return m, nil
	}
	us, err := userInfo(w)
	if err != nil {
		return nil, err
	}
	for _, f := range us {
		var err error
		switch f.tag {
		case tagSeedWords:
			m.SeedWords = string(f.val)
		case tagDateFactor:
			m.DateFactor.V, err = parseNum(f.val)
			m.DateFactor.OK = true
		case tagMaxDocuments:
			m.MaxDocs.V, err = parseNum(f.val)
			m.MaxDocs.OK = true
		}
		if err != nil {
			return nil, err
		}
	}
	return m, nil
}

// docHeader is one document header (tag 150) of a search response
// (notes §4.3).
type docHeader struct {
	DocID      []byte
	Version    num
	Score      num
	BestMatch  num
	Length     num
	Lines      num
	Types      []string
	Source     string
	Date       string
	Headline   string
	OriginCity string
}

func (h *docHeader) marshal() []byte {
	b := waiswire.AppendTLV(nil, tagDocID, h.DocID)
	b = appendNum(b, tagVersion, h.Version)
	b = appendNum(b, tagScore, h.Score)
	b = appendNum(b, tagBestMatch, h.BestMatch)
	b = appendNum(b, tagDocLength, h.Length)
	b = appendNum(b, tagLines, h.Lines)
	if len(h.Types) > 0 {
		var t []byte
		for _, s := range h.Types {
			t = waiswire.AppendTLVString(t, tagType, s)
		}
		b = waiswire.AppendTLV(b, tagTypeBlock, t)
	}
	for _, f := range []struct {
		tag int
		v   string
	}{{tagSource, h.Source}, {tagDate, h.Date}, {tagHeadline, h.Headline}, {tagOriginCity, h.OriginCity}} {
		if f.v != "" {
			b = waiswire.AppendTLVString(b, f.tag, f.v)
		}
	}
	return b
}

func decodeDocHeader(b []byte) (docHeader, error) {
	var h docHeader
	fs, err := fields(b)
	if err != nil {
		return h, err
	}
	for _, f := range fs {
		var err error
		var n *num
		switch f.tag {
		case tagDocID:
			h.DocID = f.val
		case tagVersion:
			n = &h.Version
		case tagScore:
			n = &h.Score
		case tagBestMatch:
			n = &h.BestMatch
		case tagDocLength:
			n = &h.Length
		case tagLines:
			n = &h.Lines
		case tagTypeBlock:
			ts, err := fields(f.val)
			if err != nil {
				return h, err
			}
			for _, t := range ts {
				if t.tag == tagType {
					h.Types = append(h.Types, string(t.val))
				}
			}
		case tagSource:
			h.Source = string(f.val)
		case tagDate:
			h.Date = string(f.val)
		case tagHeadline:
			h.Headline = string(f.val)
		case tagOriginCity:
			h.OriginCity = string(f.val)
		}
		if n != nil {
			n.V, err = parseNum(f.val)
			n.OK = true
		}
		if err != nil {
			return h, err
		}
	}
	if h.DocID == nil {
		return h, waisError("document header without a document id")
	}
	return h, nil
}

// docText is a document-text group (tag 153): a slice of a document.
type docText struct {
	DocID   []byte
	Version num
	Text    []byte
}

func (t *docText) marshal() []byte {
	b := waiswire.AppendTLV(nil, tagDocID, t.DocID)
	b = appendNum(b, tagVersion, t.Version)
	return waiswire.AppendTLV(b, tagDocText, t.Text)
}

func decodeDocText(b []byte) (docText, error) {
	var t docText
	fs, err := fields(b)
	if err != nil {
		return t, err
	}
	for _, f := range fs {
		switch f.tag {
		case tagDocID:
			t.DocID = f.val
		case tagVersion:
			v, err := parseNum(f.val)
			if err != nil {
				return t, err
			}
			t.Version = some(v)
		case tagDocText:
			t.Text = f.val
		}
	}
	return t, nil
}

// waisSearchResponse is a Search-response APDU (type 23, notes §4.3).
type waisSearchResponse struct {
	Status          byte
	ResultCount     int
	Returned        int
	NextPosition    int
	ResultSetStatus num
	PresentStatus   num
	RefID           []byte

	// HasUserInfo is set when the reply has a WAIS part (tag 99).
	HasUserInfo   bool
	SeedWordsUsed string
	Headers       []docHeader
	Texts         []docText
	Diagnostics   []*Diagnostic
}

func (m *waisSearchResponse) marshal() []byte {
	z := []byte{pduSearchResponse, m.Status}
	z = put3(z, m.ResultCount)
	z = put3(z, m.Returned)
	z = put3(z, m.NextPosition)
	z = appendNum(z, tagResultSetStatus, m.ResultSetStatus)
	z = appendNum(z, tagPresentStatus, m.PresentStatus)
	if m.RefID != nil {
		z = waiswire.AppendTLV(z, tagReferenceID, m.RefID)
	}
	if !m.HasUserInfo {
		return waiswire.JoinAPDU(z, nil)
	}
	var u []byte
	if m.SeedWordsUsed != "" {
		u = waiswire.AppendTLVString(u, tagSeedWordsUsed, m.SeedWordsUsed)
	}
	for i := range m.Headers {
		u = waiswire.AppendTLV(u, tagDocHeader, m.Headers[i].marshal())
	}
	for i := range m.Texts {
		u = waiswire.AppendTLV(u, tagDocTextGroup, m.Texts[i].marshal())
	}
	for _, d := range m.Diagnostics {
		u = appendDiagnostic(u, d)
	}
	return waiswire.JoinAPDU(z, waiswire.AppendTLV(nil, tagUserInfo, u))
}

func decodeSearchResponse(z, w []byte) (*waisSearchResponse, error) {
	if len(z) < 11 {
		return nil, waisError("Search-response of %d bytes", len(z))
	}
	m := &waisSearchResponse{Status: z[1], ResultCount: get3(z[2:]), Returned: get3(z[5:]), NextPosition: get3(z[8:])}
	fs, err := fields(z[11:])
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		var err error
		switch f.tag {
		case tagResultSetStatus:
			m.ResultSetStatus.V, err = parseNum(f.val)
			m.ResultSetStatus.OK = true
		case tagPresentStatus:
			m.PresentStatus.V, err = parseNum(f.val)
			m.PresentStatus.OK = true
		case tagReferenceID:
			m.RefID = f.val
		case tagDiagnostic:
			m.Diagnostics = append(m.Diagnostics, f.diag)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(w) == 0 {
		return m, nil
	}
	m.HasUserInfo = true
	us, err := userInfo(w)
	if err != nil {
		return nil, err
	}
	for _, f := range us {
		switch f.tag {
		case tagSeedWordsUsed:
			m.SeedWordsUsed = string(f.val)
		case tagDocHeader:
			h, err := decodeDocHeader(f.val)
			if err != nil {
				return nil, err
			}
			m.Headers = append(m.Headers, h)
		case tagDocTextGroup:
			t, err := decodeDocText(f.val)
			if err != nil {
				return nil, err
			}
			m.Texts = append(m.Texts, t)
		case tagDiagnostic:
			m.Diagnostics = append(m.Diagnostics, f.diag)
		}
	}
	return m, nil
}

// decodeWAIS decodes an APDU (without its message header) into a
// *waisInit, *waisSearch or *waisSearchResponse.
func decodeWAIS(apdu []byte) (any, error) {
	z, w, err := waiswire.SplitAPDU(apdu)
	if err != nil {
		return nil, err
	}
	switch z[0] {
	case pduInit, pduInitResponse:
		return decodeInit(z, w)
	case pduSearch:
		return decodeSearch(z, w)
	case pduSearchResponse:
		return decodeSearchResponse(z, w)
	}
	return nil, waisError("PDU type %d, which this client does not use", z[0])
}
