package wais

import (
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/internal/waiswire"
)

// This file holds the Z39.50-1995 APDUs the driver uses, in BER: Init,
// Search with a type-1 (RPN) query, Present, Close, and the records and
// diagnostics of the responses. Tags and field order follow the standard's
// ASN.1 module; the notes on Z39.50 (§10) give captures of each.

// APDU tags (context class, constructed).
const (
	apduInitRequest    = 20
	apduInitResponse   = 21
	apduSearchRequest  = 22
	apduSearchResponse = 23
	apduPresentRequest = 24
	apduPresentResp    = 25
	apduClose          = 48
)

// Field tags inside the APDUs.
const (
	zRefID            = 2
	zProtocolVersion  = 3
	zOptions          = 4
	zPreferredSize    = 5
	zMaxRecordSize    = 6
	zIDAuth           = 7
	zUserInfo         = 11
	zResult           = 12
	zSmallSet         = 13
	zLargeSet         = 14
	zMediumSet        = 15
	zReplace          = 16
	zResultSetName    = 17
	zDatabaseNames    = 18
	zElementSetNames  = 19
	zQuery            = 21
	zSearchStatus     = 22
	zResultCount      = 23
	zReturned         = 24
	zNextPosition     = 25
	zResultSetStatus  = 26
	zPresentStatus    = 27
	zResponseRecords  = 28
	zCount            = 29
	zStart            = 30
	zResultSetID      = 31
	zAttributeList    = 44
	zGeneralTerm      = 45
	zOperator         = 46
	zAttributesTerm   = 102
	zRecordSyntax     = 104
	zDatabaseName     = 105
	zImplID           = 110
	zImplName         = 111
	zImplVersion      = 112
	zAttributeType    = 120
	zAttributeValue   = 121
	zNonSurrogateDiag = 130
	zAdditionalSearch = 203
	zMultipleDiags    = 205
	zCloseReason      = 211
)

// Object identifiers (notes §10).
var (
	oidBib1        = oid{1, 2, 840, 10003, 3, 1}
	oidDiagBib1    = oid{1, 2, 840, 10003, 4, 1}
	oidSUTRS       = oid{1, 2, 840, 10003, 5, 101}
	oidXML         = oid{1, 2, 840, 10003, 5, 109, 10}
	oidUSMARC      = oid{1, 2, 840, 10003, 5, 10}
	recordSyntaxes = []struct {
		name  string
		oid   oid
		media string
	}{
		{"SUTRS", oidSUTRS, "text/plain"},
		{"XML", oidXML, "text/xml"},
		{"USMARC", oidUSMARC, "application/marc"},
	}
)

// syntaxName returns the short name of a record syntax, or its dotted OID.
func syntaxName(o oid) string {
	for _, s := range recordSyntaxes {
		if s.oid.equal(o) {
			return s.name
		}
	}
	return o.String()
}

// syntaxOID returns the record syntax a wtype names ("SUTRS", "XML",
// "USMARC" or a dotted OID), or nil.
func syntaxOID(name string) oid {
	for _, s := range recordSyntaxes {
		if s.name == name {
			return s.oid
		}
	}
	var o oid
	for part := range strings.SplitSeq(name, ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 || n > 1<<24 {
			return nil
		}
		o = append(o, n)
	}
	if len(o) < 2 || o[0] > 2 || o[1] > 39 {
		return nil
	}
	return o
}

// syntaxMedia is the media type of a record in syntax o.
func syntaxMedia(o oid) string {
	for _, s := range recordSyntaxes {
		if s.oid.equal(o) {
			return s.media
		}
	}
	return "application/octet-stream"
}

// zInit is an InitializeRequest or, with Response set, an
// InitializeResponse.
type zInit struct {
	Response    bool
	RefID       []byte
	Version     []byte // BIT STRING contents, unused-bits octet first
	Options     []byte
	Preferred   int64
	MaxRecord   int64
	Result      bool // response only
	ImplID      string
	ImplName    string
	ImplVersion string
}

func (m *zInit) marshal() []byte {
	var es [][]byte
	if m.RefID != nil {
		es = append(es, ctx(zRefID, m.RefID))
	}
	es = append(es,
		ctx(zProtocolVersion, m.Version),
		ctx(zOptions, m.Options),
		ctx(zPreferredSize, intBytes(m.Preferred)),
		ctx(zMaxRecordSize, intBytes(m.MaxRecord)))
	tag := apduInitRequest
	if m.Response {
		tag = apduInitResponse
		es = append(es, ctx(zResult, boolBytes(m.Result)))
	}
	for _, f := range []struct {
		tag int
		v   string
	}{{zImplID, m.ImplID}, {zImplName, m.ImplName}, {zImplVersion, m.ImplVersion}} {
		if f.v != "" {
			es = append(es, ctx(f.tag, []byte(f.v)))
		}
	}
	return ctxCons(tag, es...)
}

func decodeZInit(e element) (*zInit, error) {
	m := &zInit{Response: e.Tag == apduInitResponse}
	err := eachContextField(e, func(f element) (err error) {
		switch f.Tag {
		case zRefID:
			m.RefID, err = stringValue(f)
		case zProtocolVersion:
			m.Version, err = stringValue(f)
		case zOptions:
			m.Options, err = stringValue(f)
		case zPreferredSize:
			m.Preferred, err = intValue(f)
		case zMaxRecordSize:
			m.MaxRecord, err = intValue(f)
		case zResult:
			m.Result, err = boolValue(f)
		case zImplID, zImplName, zImplVersion:
			var s []byte
			s, err = stringValue(f)
			switch f.Tag {
			case zImplID:
				m.ImplID = string(s)
			case zImplName:
				m.ImplName = string(s)
			default:
				m.ImplVersion = string(s)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// zAttr is one Bib-1 attribute: type (1 use, 2 relation, 4 structure,
// ...) and numeric value.
type zAttr struct {
	Type, Value int64
}

// Boolean operators of an RPN query.
const (
	opAnd    = 0
	opOr     = 1
	opAndNot = 2
)

// rpnNode is a type-1 query: an operand (attributes and a term) or, when
// Left is set, an operator applied to Left and Right.
type rpnNode struct {
	Attrs       []zAttr
	Term        []byte
	Op          int
	Left, Right *rpnNode
}

func (n *rpnNode) marshal() []byte {
	if n.Left != nil {
		return ctxCons(1, n.Left.marshal(), n.Right.marshal(), ctxCons(zOperator, ctx(n.Op, nil)))
	}
	var attrs [][]byte
	for _, a := range n.Attrs {
		attrs = append(attrs, cons(classUniversal, univSequence, ctx(zAttributeType, intBytes(a.Type)), ctx(zAttributeValue, intBytes(a.Value))))
	}
	return ctxCons(0, ctxCons(zAttributesTerm, ctxCons(zAttributeList, attrs...), ctx(zGeneralTerm, n.Term)))
}

func decodeRPN(e element, depth int) (*rpnNode, error) {
	if depth > waiswire.MaxBERDepth {
		return nil, berError("query nested deeper than %d", waiswire.MaxBERDepth)
	}
	fs, err := children(e.Content)
	if err != nil {
		return nil, err
	}
	switch {
	case e.is(classContext, 0) && len(fs) == 1 && fs[0].is(classContext, zAttributesTerm):
		parts, err := children(fs[0].Content)
		if err != nil {
			return nil, err
		}
		n := &rpnNode{}
		for _, p := range parts {
			switch {
			case p.is(classContext, zAttributeList):
				items, err := children(p.Content)
				if err != nil {
					return nil, err
				}
				for _, it := range items {
					tv, err := children(it.Content)
					if err != nil {
						return nil, err
					}
					var a zAttr
					for _, x := range tv {
						v, err := intValue(x)
						if err != nil {
							continue // a complex value or an attribute set
						}
						switch x.Tag {
						case zAttributeType:
							a.Type = v
						case zAttributeValue:
							a.Value = v
						}
					}
					n.Attrs = append(n.Attrs, a)
				}
			case p.is(classContext, zGeneralTerm):
				if n.Term, err = stringValue(p); err != nil {
					return nil, err
				}
			}
		}
		return n, nil
	case e.is(classContext, 1) && len(fs) == 3:
		l, err := decodeRPN(fs[0], depth+1)
		if err != nil {
			return nil, err
		}
		r, err := decodeRPN(fs[1], depth+1)
		if err != nil {
			return nil, err
		}
		ops, err := children(fs[2].Content)
		if err != nil || len(ops) != 1 {
			return nil, berError("query operator")
		}
		return &rpnNode{Op: ops[0].Tag, Left: l, Right: r}, nil
	}
	return nil, berError("query element %v this client does not read", e)
}

// zSearch is a SearchRequest with a type-1 query over attribute set
// AttrSet.
type zSearch struct {
	RefID     []byte
	Small     int64
	Large     int64
	Medium    int64
	Replace   bool
	ResultSet string
	Databases []string
	AttrSet   oid
	Query     *rpnNode
}

func (m *zSearch) marshal() []byte {
	var es [][]byte
	if m.RefID != nil {
		es = append(es, ctx(zRefID, m.RefID))
	}
	var dbs [][]byte
	for _, d := range m.Databases {
		dbs = append(dbs, ctx(zDatabaseName, []byte(d)))
	}
	es = append(es,
		ctx(zSmallSet, intBytes(m.Small)),
		ctx(zLargeSet, intBytes(m.Large)),
		ctx(zMediumSet, intBytes(m.Medium)),
		ctx(zReplace, boolBytes(m.Replace)),
		ctx(zResultSetName, []byte(m.ResultSet)),
		ctxCons(zDatabaseNames, dbs...),
		ctxCons(zQuery, ctxCons(1, tlv(classUniversal, false, univOID, oidBytes(m.AttrSet)), m.Query.marshal())))
	return ctxCons(apduSearchRequest, es...)
}

func decodeZSearch(e element) (*zSearch, error) {
	m := &zSearch{}
	err := eachContextField(e, func(f element) (err error) {
		switch f.Tag {
		case zRefID:
			m.RefID, err = stringValue(f)
		case zSmallSet:
			m.Small, err = intValue(f)
		case zLargeSet:
			m.Large, err = intValue(f)
		case zMediumSet:
			m.Medium, err = intValue(f)
		case zReplace:
			m.Replace, err = boolValue(f)
		case zResultSetName:
			var s []byte
			s, err = stringValue(f)
			m.ResultSet = string(s)
		case zDatabaseNames:
			var dbs []element
			dbs, err = children(f.Content)
			for _, d := range dbs {
				s, err := stringValue(d)
				if err != nil {
					return err
				}
				m.Databases = append(m.Databases, string(s))
			}
		case zQuery:
			err = m.decodeQuery(f)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if m.Query == nil {
		return nil, berError("SearchRequest without a type-1 query")
	}
	return m, nil
}

func (m *zSearch) decodeQuery(f element) error {
	q, err := children(f.Content)
	if err != nil {
		return err
	}
	if len(q) != 1 || !q[0].is(classContext, 1) {
		return berError("query of a type other than 1")
	}
	parts, err := children(q[0].Content)
	if err != nil {
		return err
	}
	if len(parts) != 2 {
		return berError("RPN query of %d parts", len(parts))
	}
	if m.AttrSet, err = oidValue(parts[0]); err != nil {
		return err
	}
	m.Query, err = decodeRPN(parts[1], 0)
	return err
}

// zRecord is one NamePlusRecord of a response: a record in a syntax, or a
// surrogate diagnostic in its place.
type zRecord struct {
	Database string
	Syntax   oid
	// Data is the record: the text of a SUTRS record, the bytes of an
	// octet-aligned one (XML, MARC).
	Data []byte
	// Single reports that the record came as single-ASN1-type (SUTRS)
	// rather than octet-aligned.
	Single bool
	Diag   *Diagnostic
}

func (r *zRecord) marshal() []byte {
	var rec []byte
	if r.Diag != nil {
		rec = ctxCons(2, r.Diag.marshalBER())
	} else {
		enc := ctx(1, r.Data)
		if r.Single {
			enc = ctxCons(0, tlv(classUniversal, false, univGeneral, r.Data))
		}
		ext := cons(classUniversal, univExternal, tlv(classUniversal, false, univOID, oidBytes(r.Syntax)), enc)
		rec = ctxCons(1, ext)
	}
	var es [][]byte
	if r.Database != "" {
		es = append(es, ctx(0, []byte(r.Database)))
	}
	es = append(es, ctxCons(1, rec))
	return cons(classUniversal, univSequence, es...)
}

func decodeZRecord(e element) (zRecord, error) {
	var r zRecord
	fs, err := children(e.Content)
	if err != nil {
		return r, err
	}
	for _, f := range fs {
		switch {
		case f.is(classContext, 0):
			s, err := stringValue(f)
			if err != nil {
				return r, err
			}
			r.Database = string(s)
		case f.is(classContext, 1):
			inner, err := children(f.Content)
			if err != nil {
				return r, err
			}
			if len(inner) != 1 {
				return r, berError("record of %d elements", len(inner))
			}
			c := inner[0]
			switch {
			case c.is(classContext, 1):
				exts, err := children(c.Content)
				if err != nil {
					return r, err
				}
				if len(exts) != 1 || !exts[0].is(classUniversal, univExternal) {
					return r, berError("retrieval record is not an EXTERNAL")
				}
				if err := r.decodeExternal(exts[0]); err != nil {
					return r, err
				}
			case c.is(classContext, 2):
				ds, err := children(c.Content)
				if err != nil {
					return r, err
				}
				if len(ds) != 1 {
					return r, berError("surrogate diagnostic of %d elements", len(ds))
				}
				if r.Diag, err = decodeZDiag(ds[0]); err != nil {
					return r, err
				}
			default:
				return r, berError("record form %v (a fragment?) this client does not read", c)
			}
		}
	}
	if r.Diag == nil && r.Syntax == nil {
		return r, berError("NamePlusRecord without a record")
	}
	return r, nil
}

// decodeExternal reads an EXTERNAL: the record syntax OID and the
// encoding, single-ASN1-type [0] (SUTRS: one string) or octet-aligned [1].
func (r *zRecord) decodeExternal(e element) error {
	fs, err := children(e.Content)
	if err != nil {
		return err
	}
	for _, f := range fs {
		switch {
		case f.is(classUniversal, univOID):
			if r.Syntax, err = oidValue(f); err != nil {
				return err
			}
		case f.is(classContext, 0):
			in, err := children(f.Content)
			if err != nil {
				return err
			}
			if len(in) != 1 {
				return berError("single-ASN1-type of %d elements", len(in))
			}
			if in[0].Class != classUniversal {
				return berError("record in single-ASN1-type %v, which is not a string", in[0])
			}
			if r.Data, err = stringValue(in[0]); err != nil {
				return err
			}
			r.Single = true
		case f.is(classContext, 1):
			if r.Data, err = stringValue(f); err != nil {
				return err
			}
		}
	}
	if r.Syntax == nil {
		return berError("EXTERNAL without a record syntax")
	}
	return nil
}

// decodeZDiag reads a DiagRec: a DefaultDiagFormat SEQUENCE { OID,
// condition, addinfo } (an externally defined one keeps only its OID).
func decodeZDiag(e element) (*Diagnostic, error) {
	fs, err := children(e.Content)
	if err != nil {
		return nil, err
	}
	d := &Diagnostic{Dialect: DialectZ3950}
	for _, f := range fs {
		switch {
		case f.is(classUniversal, univOID):
			o, err := oidValue(f)
			if err != nil {
				return nil, err
			}
			if !o.equal(oidDiagBib1) {
				d.Set = o.String()
			}
		case f.is(classUniversal, univInteger):
			v, err := intValue(f)
			if err != nil {
				return nil, err
			}
			d.Code = strconv.FormatInt(v, 10)
		case f.Class == classUniversal && (f.Tag == univVisible || f.Tag == univGeneral || f.Tag == univOctetString):
			s, err := stringValue(f)
			if err != nil {
				return nil, err
			}
			d.AddInfo = string(s)
		}
	}
	d.Message = bib1Message(d)
	return d, nil
}

// marshalBER writes a Z39.50 diagnostic as a DefaultDiagFormat.
func (d *Diagnostic) marshalBER() []byte {
	return tlv(classUniversal, true, univSequence, d.berContent())
}

// berContent is the contents of a DefaultDiagFormat: the Bib-1
// diagnostic set, the condition and the additional information.
func (d *Diagnostic) berContent() []byte {
	code, _ := strconv.ParseInt(d.Code, 10, 64)
	b := tlv(classUniversal, false, univOID, oidBytes(oidDiagBib1))
	b = append(b, tlv(classUniversal, false, univInteger, intBytes(code))...)
	return append(b, tlv(classUniversal, false, univGeneral, []byte(d.AddInfo))...)
}

// zRecords is the records part of a search or present response.
type zRecords struct {
	Records []zRecord
	// Diags are non-surrogate diagnostics: the operation failed as a whole.
	Diags []*Diagnostic
}

func (rs *zRecords) marshal() []byte {
	switch {
	case len(rs.Diags) == 1:
		return tlv(classContext, true, zNonSurrogateDiag, rs.Diags[0].berContent())
	case len(rs.Diags) > 1:
		var ds [][]byte
		for _, d := range rs.Diags {
			ds = append(ds, d.marshalBER())
		}
		return ctxCons(zMultipleDiags, ds...)
	case rs.Records != nil:
		var es [][]byte
		for i := range rs.Records {
			es = append(es, rs.Records[i].marshal())
		}
		return ctxCons(zResponseRecords, es...)
	}
	return nil
}

func (rs *zRecords) decode(f element) error {
	switch f.Tag {
	case zResponseRecords:
		es, err := children(f.Content)
		if err != nil {
			return err
		}
		rs.Records = []zRecord{}
		for _, e := range es {
			r, err := decodeZRecord(e)
			if err != nil {
				return err
			}
			rs.Records = append(rs.Records, r)
		}
	case zNonSurrogateDiag:
		d, err := decodeZDiag(f)
		if err != nil {
			return err
		}
		rs.Diags = append(rs.Diags, d)
	case zMultipleDiags:
		es, err := children(f.Content)
		if err != nil {
			return err
		}
		for _, e := range es {
			d, err := decodeZDiag(e)
			if err != nil {
				return err
			}
			rs.Diags = append(rs.Diags, d)
		}
	}
	return nil
}

// zSearchResponse is a SearchResponse.
type zSearchResponse struct {
	RefID           []byte
	Count           int64
	Returned        int64
	Next            int64
	Status          bool
	ResultSetStatus int64 // 0: absent
	PresentStatus   int64 // -1: absent
	zRecords
	// Additional is the additionalSearchInfo element as it came.
	Additional []byte
}

func (m *zSearchResponse) marshal() []byte {
	var es [][]byte
	if m.RefID != nil {
		es = append(es, ctx(zRefID, m.RefID))
	}
	es = append(es,
		ctx(zResultCount, intBytes(m.Count)),
		ctx(zReturned, intBytes(m.Returned)),
		ctx(zNextPosition, intBytes(m.Next)),
		ctx(zSearchStatus, boolBytes(m.Status)))
	if m.ResultSetStatus != 0 {
		es = append(es, ctx(zResultSetStatus, intBytes(m.ResultSetStatus)))
	}
	if m.PresentStatus >= 0 {
		es = append(es, ctx(zPresentStatus, intBytes(m.PresentStatus)))
	}
	es = append(es, m.zRecords.marshal(), m.Additional)
	return ctxCons(apduSearchResponse, es...)
}

func decodeZSearchResponse(e element) (*zSearchResponse, error) {
	m := &zSearchResponse{PresentStatus: -1}
	err := eachContextField(e, func(f element) (err error) {
		switch f.Tag {
		case zRefID:
			m.RefID, err = stringValue(f)
		case zResultCount:
			m.Count, err = intValue(f)
		case zReturned:
			m.Returned, err = intValue(f)
		case zNextPosition:
			m.Next, err = intValue(f)
		case zSearchStatus:
			m.Status, err = boolValue(f)
		case zResultSetStatus:
			m.ResultSetStatus, err = intValue(f)
		case zPresentStatus:
			m.PresentStatus, err = intValue(f)
		case zResponseRecords, zNonSurrogateDiag, zMultipleDiags:
			err = m.zRecords.decode(f)
		case zAdditionalSearch:
			m.Additional = tlv(f.Class, f.Constructed, f.Tag, f.Content)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// zPresent is a PresentRequest.
type zPresent struct {
	RefID      []byte
	ResultSet  string
	Start      int64
	Count      int64
	ElementSet string // generic element set name, "" for none
	Syntax     oid    // preferred record syntax, nil for none
}

func (m *zPresent) marshal() []byte {
	var es [][]byte
	if m.RefID != nil {
		es = append(es, ctx(zRefID, m.RefID))
	}
	es = append(es,
		ctx(zResultSetID, []byte(m.ResultSet)),
		ctx(zStart, intBytes(m.Start)),
		ctx(zCount, intBytes(m.Count)))
	if m.ElementSet != "" {
		es = append(es, ctxCons(zElementSetNames, ctx(0, []byte(m.ElementSet))))
	}
	if m.Syntax != nil {
		es = append(es, ctx(zRecordSyntax, oidBytes(m.Syntax)))
	}
	return ctxCons(apduPresentRequest, es...)
}

func decodeZPresent(e element) (*zPresent, error) {
	m := &zPresent{}
	err := eachContextField(e, func(f element) (err error) {
		switch f.Tag {
		case zRefID:
			m.RefID, err = stringValue(f)
		case zResultSetID:
			var s []byte
			s, err = stringValue(f)
			m.ResultSet = string(s)
		case zStart:
			m.Start, err = intValue(f)
		case zCount:
			m.Count, err = intValue(f)
		case zElementSetNames:
			var in []element
			in, err = children(f.Content)
			if err == nil && len(in) == 1 {
				var s []byte
				s, err = stringValue(in[0])
				m.ElementSet = string(s)
			}
		case zRecordSyntax:
			m.Syntax, err = oidValue(element{Content: f.Content})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// zPresentResponse is a PresentResponse.
type zPresentResponse struct {
	RefID         []byte
	Returned      int64
	Next          int64
	PresentStatus int64
	zRecords
}

func (m *zPresentResponse) marshal() []byte {
	var es [][]byte
	if m.RefID != nil {
		es = append(es, ctx(zRefID, m.RefID))
	}
	es = append(es,
		ctx(zReturned, intBytes(m.Returned)),
		ctx(zNextPosition, intBytes(m.Next)),
		ctx(zPresentStatus, intBytes(m.PresentStatus)),
		m.zRecords.marshal())
	return ctxCons(apduPresentResp, es...)
}

func decodeZPresentResponse(e element) (*zPresentResponse, error) {
	m := &zPresentResponse{}
	err := eachContextField(e, func(f element) (err error) {
		switch f.Tag {
		case zRefID:
			m.RefID, err = stringValue(f)
		case zReturned:
			m.Returned, err = intValue(f)
		case zNextPosition:
			m.Next, err = intValue(f)
		case zPresentStatus:
			m.PresentStatus, err = intValue(f)
		case zResponseRecords, zNonSurrogateDiag, zMultipleDiags:
			err = m.zRecords.decode(f)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// zClose is a Close APDU; reason 0 is "finished".
type zClose struct {
	Reason int64
}

func (m *zClose) marshal() []byte {
	return ctxCons(apduClose, ctx(zCloseReason, intBytes(m.Reason)))
}

func decodeZClose(e element) (*zClose, error) {
	m := &zClose{}
	fs, err := children(e.Content)
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		if f.is(classContext, zCloseReason) {
			if m.Reason, err = intValue(f); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// decodeZ3950 decodes one APDU into a *zInit, *zSearch, *zSearchResponse,
// *zPresent, *zPresentResponse or *zClose.
func decodeZ3950(b []byte) (any, error) {
	e, rest, err := parseElement(b)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, berError("%d bytes after the APDU", len(rest))
	}
	if e.Class != classContext || !e.Constructed {
		return nil, berError("APDU %v is not a constructed context-specific element", e)
	}
	switch e.Tag {
	case apduInitRequest, apduInitResponse:
		return decodeZInit(e)
	case apduSearchRequest:
		return decodeZSearch(e)
	case apduSearchResponse:
		return decodeZSearchResponse(e)
	case apduPresentRequest:
		return decodeZPresent(e)
	case apduPresentResp:
		return decodeZPresentResponse(e)
	case apduClose:
		return decodeZClose(e)
	}
	return nil, berError("APDU %v, which this client does not use", e)
}
