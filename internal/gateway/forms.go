package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"html/template"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/gopher"
	"github.com/urlfetch/urlfetch/internal/termsafe"
	"github.com/urlfetch/urlfetch/uri"
)

// Gopher's two forms become HTML forms. A type-7 search without its words
// (RFC 1738 section 3.4.2) is a page that asks for them; its answer is a
// POST of the words, which the gateway sends back to the URL with the
// words after %09 (a 303), a URL like any other. A Gopher+ item with an
// electronic form ("?", Gopher+ section 2.8) is a page with the
// questions of its +ASK block, fetched with "!"; its answer is a POST
// that the gateway sends to the server as RFC 1738 section 3.4.9 says,
// the filled-in form (gopher.FilledForm): selector TAB "+" TAB "1", the
// "+-1" data block with one line per answer, and the "." line.
//
// The filled-in form is the one request a web client makes that is no
// hop: CheckHop refuses a data block that a server chose, for its lines
// could be aimed at any server. The gateway sends one only for a form it
// showed (the POST carries the form's token, an HMAC of the form's URL
// under the gateway's key, which no other page can read), to the server
// whose +ASK block it has just fetched again, with one line per question
// of that block; the scheme and port policy apply as to any URL.

// maxFormBytes bounds the body of a POST: a search's words, a form's
// answers.
const maxFormBytes = 1 << 20

// form answers a GET whose URL is a form rather than a resource, and
// reports whether it did: a gopher type-7 URL without its words, a
// Gopher+ "?" URL.
func (x *exchange) form(u *uri.URL) bool {
	g, ok := gopherForm(u)
	if !ok {
		return false
	}
	action, ok := x.link(u.String())
	if !ok {
		return false // not a scheme served: the fetch says why
	}
	if g.Type == '7' {
		x.searchPage(u, action)
	} else {
		x.askPage(u, g, action)
	}
	return true
}

// gopherForm returns u's gopher view when u is a search without its
// words or an item's Gopher+ form.
func gopherForm(u *uri.URL) (*uri.Gopher, bool) {
	if u.Scheme != "gopher" {
		return nil, false
	}
	g, err := u.Gopher()
	if err != nil {
		return nil, false
	}
	switch {
	case g.Type == '7' && !g.HasSearch:
		return g, true
	case g.HasPlus && g.Plus == "?":
		return g, true
	}
	return nil, false
}

// searchPage asks for the words of a gopher search.
func (x *exchange) searchPage(u *uri.URL, action template.URL) {
	data := struct {
		pageHead
		Action template.URL
	}{x.head("Search " + termsafe.Escape(u.Redacted())), action}
	if x.startPage(http.StatusOK) {
		x.execute("search", data)
	}
}

// question is one question of a +ASK form as the page shows it.
type question struct {
	Kind, Prompt, Default, Name string
	Choices                     []string
}

// askPage shows the questions of a Gopher+ item's +ASK form.
func (x *exchange) askPage(u *uri.URL, g *uri.Gopher, action template.URL) {
	qs, err := x.questions(g)
	if err != nil {
		x.failErr(err)
		return
	}
	data := struct {
		pageHead
		Action    template.URL
		Token     string
		Questions []question
	}{pageHead: x.head("Form " + termsafe.Escape(u.Redacted())), Action: action, Token: x.s.formToken(u)}
	for i, q := range qs {
		pq := question{Kind: q.Kind, Prompt: termsafe.Escape(q.Prompt), Default: termsafe.Escape(q.Default), Name: answerField(i)}
		for _, c := range q.Choices {
			pq.Choices = append(pq.Choices, termsafe.Escape(c))
		}
		data.Questions = append(data.Questions, pq)
	}
	if x.startPage(http.StatusOK) {
		x.execute("ask", data)
	}
}

// answerField is the name of the form field of question i.
func answerField(i int) string { return "a" + strconv.Itoa(i) }

// questions fetches the +ASK block of g's item with "!" (a hop like any
// other) and returns its questions. A question that asks for a local
// file (ChooseF) cannot be answered from the web.
func (x *exchange) questions(g *uri.Gopher) ([]gopher.Question, error) {
	attr := *g
	attr.HasSearch, attr.Plus = true, "!"
	au, err := uri.Parse(attr.String())
	if err != nil {
		return nil, err
	}
	req, err := x.s.request(au)
	if err != nil {
		return nil, err
	}
	resp, err := x.s.client.Do(x.r.Context(), req)
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	lines := resp.Meta.Values("Gopher-Ask")
	if len(lines) == 0 {
		return nil, &fetch.Error{Op: "fetch", URL: au.Redacted(), Err: fetch.Errorf(fetch.ErrProtocol, "the URL marks the item as a form (?), but its attributes have no +ASK block")}
	}
	qs, err := gopher.ParseAsk(&gopher.Block{Name: "+ASK", Lines: lines})
	if err != nil {
		return nil, &fetch.Error{Op: "fetch", URL: au.Redacted(), Err: fetch.Errorf(fetch.ErrProtocol, "%w", err)}
	}
	for _, q := range qs {
		if q.Kind == "ChooseF" {
			return nil, &fetch.Error{Op: "fetch", URL: au.Redacted(), Err: fetch.Errorf(fetch.ErrUnsupported, "the form asks for a local file to send (ChooseF: %s), which this gateway does not send", q.Prompt)}
		}
	}
	return qs, nil
}

// formToken is the token of the form the gateway shows for u.
func (s *Server) formToken(u *uri.URL) string {
	m := hmac.New(sha256.New, s.key)
	io.WriteString(m, "gopher+ask\x00"+u.String())
	return hex.EncodeToString(m.Sum(nil))
}

// submit answers a POST: the words of a type-7 search, or the answers to
// a Gopher+ form the gateway showed.
func (x *exchange) submit(u *uri.URL) {
	x.r.Body = http.MaxBytesReader(x.w, x.r.Body, maxFormBytes)
	if err := x.r.ParseForm(); err != nil {
		x.fail(http.StatusBadRequest, fetch.Errorf(fetch.ErrURL, "the form's answers: %v", err))
		return
	}
	g, ok := gopherForm(u)
	if !ok {
		x.w.Header().Set("Allow", "GET, HEAD")
		x.fail(http.StatusMethodNotAllowed, fetch.Errorf(fetch.ErrUnsupported, "a POST answers a gopher search or a Gopher+ form; this URL is neither"))
		return
	}
	if g.Type == '7' {
		x.search(g)
		return
	}
	x.answer(u, g)
}

// search sends the client to the search's URL with its words (RFC 1738
// section 3.4.2: selector %09 search).
func (x *exchange) search(g *uri.Gopher) {
	words := x.r.PostForm.Get("search")
	if words == "" {
		x.fail(http.StatusBadRequest, fetch.Errorf(fetch.ErrURL, "a search needs words"))
		return
	}
	filled := *g
	filled.Search, filled.HasSearch = words, true
	href, ok := x.link(filled.String())
	if !ok {
		x.fail(http.StatusBadRequest, fetch.Errorf(fetch.ErrURL, "no URL for the search %q", termsafe.Escape(words)))
		return
	}
	x.w.Header().Set("Location", string(href))
	x.w.WriteHeader(http.StatusSeeOther)
}

// answer sends the answers to the form of u (g) to its server and
// answers with what the server gives back.
func (x *exchange) answer(u *uri.URL, g *uri.Gopher) {
	want, err := hex.DecodeString(x.s.formToken(u))
	got, herr := hex.DecodeString(x.r.PostForm.Get("token"))
	if err != nil || herr != nil || !hmac.Equal(got, want) {
		x.fail(http.StatusForbidden, fetch.Errorf(fetch.ErrUnsafe, "the answers are not to a form this gateway showed (no valid token)"))
		return
	}
	qs, err := x.questions(g)
	if err != nil {
		x.failErr(err)
		return
	}
	answers := make([]string, len(qs))
	for i, q := range qs {
		a := x.r.PostForm.Get(answerField(i))
		if len(q.Choices) > 0 {
			// The page showed the choices visible; the server gets its
			// own.
			j := slices.IndexFunc(q.Choices, func(c string) bool { return termsafe.Escape(c) == a })
			if j < 0 {
				x.fail(http.StatusBadRequest, fetch.Errorf(fetch.ErrURL, "%q is not one of the choices of %q", termsafe.Escape(a), termsafe.Escape(q.Prompt)))
				return
			}
			a = q.Choices[j]
		}
		answers[i] = a
	}
	filled, err := gopher.FilledForm(g, qs, answers)
	if err != nil {
		x.fail(http.StatusBadRequest, err)
		return
	}
	req, err := x.s.client.NewRequest(filled.String())
	if err != nil {
		x.failErr(err)
		return
	}
	for i, q := range qs {
		if q.Kind == "AskP" {
			req.AddSecret(answers[i])
		}
	}
	resp, err := x.s.client.Do(x.r.Context(), req)
	if fe := (*fetch.Error)(nil); errors.As(err, &fe) {
		fe.URL = u.Redacted() // the form, not its answers
	}
	if err != nil {
		x.failErr(err)
		return
	}
	defer resp.Body.Close()
	resp.URL = u // the page names the form, not the answers
	x.reply(req, resp)
}
