package main

// A topic is what "fetch help SCHEME" says of a scheme: what its URLs
// mean, their syntax, the option groups that apply and examples. The man
// page's SCHEMES section prints the same topics.
type topic struct {
	names    []string // the schemes it covers, first the one it is filed under
	syntax   []string
	text     string
	groups   []string // the option categories that apply, besides the general ones
	examples []string
}

// topics are in the order of RFC 1738's scheme sections.
var topics = []topic{
	{
		names:  []string{"ftp", "ftps"},
		syntax: []string{"ftp://[user[:password]@]host[:port]/cwd1/cwd2/.../name[;type=a|i|d]"},
		text: "RFC 1738 section 3.2. fetch logs in (as anonymous when the URL names no user; a password from " +
			"the URL, ~/.netrc or a prompt), sends one CWD per directory segment, then RETR name for a document or " +
			"a listing (MLSD, else LIST) for a directory or an empty name. %2F in a segment is a \"/\" inside a " +
			"name, so ftp://host/%2Fetc/motd starts at the root. ;type=a transfers text as ASCII, ;type=i as " +
			"binary (the default for a document), ;type=d lists (NLST). ftps: is FTP over TLS from the first " +
			"byte (port 990); --ssl and --ssl-reqd turn an ftp: connection to TLS with AUTH TLS.",
		groups: []string{"ftp and ftps", "TLS"},
		examples: []string{
			"fetch ftp://ftp.example.org/pub/README",
			"fetch -O 'ftp://joe@ftp.example.org/pub/big.iso;type=i'",
			"fetch 'ftp://ftp.example.org/%2Fetc/motd;type=a'",
			"fetch --ssl-reqd ftp://ftp.example.org/pub/",
		},
	},
	{
		names:  []string{"http", "https"},
		syntax: []string{"http://[user[:password]@]host[:port]/path[?search]", "https://[user[:password]@]host[:port]/path[?search]"},
		text: "RFC 1738 section 3.3. fetch sends a GET and writes the body; redirects are followed within the " +
			"policy (--max-redirs, --proto-redir). Credentials go as Basic authorization with the first request: " +
			"the URL's user:password@ (which RFC 1738 does not define for http; fetch warns), else -u USER[:PASSWORD] " +
			"(without the password, asked on the terminal once), else the host's machine entry in ~/.netrc (not " +
			"its default entry, the anonymous FTP login). They go to that server only, never to another host a " +
			"redirect names, and nor do your -H Authorization, Cookie and Host. A 401 is exit 5. " +
			"https: is HTTP over TLS, HTTP/2 where the server offers it.",
		groups: []string{"http and https", "TLS", "Redirects and safety"},
		examples: []string{
			"fetch https://example.org/",
			"fetch -O https://example.org/dist/big.tar.gz",
			"fetch -u ann -H 'Accept: text/plain' https://example.org/private/notes",
			"fetch --netrc-file ~/.netrc-work -H 'X-Request-Id: 42' https://intranet.example/report.csv",
		},
	},
	{
		names: []string{"gopher"},
		syntax: []string{
			"gopher://host[:port]/[type[selector[%09search[%09gopher+_string]]]]",
		},
		text: "RFC 1738 section 3.4. The first character of the path is the item's type (1 a menu, 0 a text " +
			"file, 7 a search, 9 a binary file, ...; 1 when the path is empty), the rest the selector. fetch sends " +
			"the selector, a TAB and the search when there is one, and a TAB and the Gopher+ string when there is " +
			"one (\"!\" asks for an item's attributes, \"$\" for a menu's). A menu prints as a listing; --search " +
			"gives a type-7 item the words its URL lacks.",
		groups: []string{"gopher", "gopher and wais searches"},
		examples: []string{
			"fetch gopher://gopher.example.org/",
			"fetch 'gopher://gopher.example.org/7/search%09words'",
			"fetch 'gopher://gopher.example.org/0about%09%09!'",
		},
	},
	{
		names:  []string{"news", "snews"},
		syntax: []string{"news:group.name", "news:message-id@host", "news:*"},
		text: "RFC 1738 section 3.6. A news: URL names no server: fetch asks the one --news-server or " +
			"$NNTPSERVER names. news:group lists the group's newest articles, news:id@host is one article " +
			"(ARTICLE <id@host>), news:* lists every group. snews: is the same over TLS (port 563).",
		groups: []string{"news and nntp", "TLS"},
		examples: []string{
			"fetch --news-server news.example.org news:comp.lang.go",
			"NNTPSERVER=news.example.org fetch news:12345@example.org",
		},
	},
	{
		names:  []string{"nntp", "nntps"},
		syntax: []string{"nntp://host[:port]/group.name/article-number"},
		text: "RFC 1738 section 3.7. One article of a group by its number on that server, or the group's listing " +
			"when the number is left out. nntps: is the same over TLS (port 563).",
		groups: []string{"news and nntp", "TLS"},
		examples: []string{
			"fetch nntp://news.example.org/comp.lang.go/42",
			"fetch nntps://news.example.org/comp.lang.go",
		},
	},
	{
		names:  []string{"telnet"},
		syntax: []string{"telnet://[user[:password]@]host[:port]/"},
		text: "RFC 1738 section 3.8. An interactive session: the terminal is connected to the server until " +
			"either side closes. With --login, fetch answers the login and password prompts with the URL's user " +
			"and password (or ~/.netrc's).",
		groups: []string{"telnet"},
		examples: []string{
			"fetch telnet://bbs.example.org",
			"fetch --login telnet://guest:guest@bbs.example.org/",
		},
	},
	{
		names:  []string{"wais"},
		syntax: []string{"wais://host[:port]/database[?search]", "wais://host[:port]/database/wtype/wpath"},
		text: "RFC 1738 section 3.9. A database URL with a search returns the hits (a listing), without one the " +
			"database's description; a document URL retrieves one document. fetch speaks WAIS, or Z39.50-1995 to " +
			"servers that only know that (--wais-dialect).",
		groups: []string{"wais", "gopher and wais searches"},
		examples: []string{
			"fetch 'wais://wais.example.org/db?words'",
			"fetch --search words wais://wais.example.org/db",
		},
	},
	{
		names:  []string{"file"},
		syntax: []string{"file://[localhost]/path"},
		text: "RFC 1738 section 3.10. A file or directory of this machine: a directory prints as a listing. A " +
			"file: URL naming another host is refused (exit 6).",
		examples: []string{
			"fetch file:///etc/hostname",
			"fetch --json file:///var/log/",
		},
	},
	{
		names:  []string{"mailto"},
		syntax: []string{"mailto:address[,address...][?header=value&body=text]"},
		text: "RFC 1738 section 3.5 (headers and body: RFC 6068). fetch sends the message on standard input (or " +
			"--body FILE) to the addresses, through the SMTP server --smtp-server names, with STARTTLS when the " +
			"server offers it.",
		groups: []string{"mailto"},
		examples: []string{
			"echo hello | fetch --smtp-server mail.example.org:25 mailto:someone@example.org",
			"fetch --body note.txt --subject 'A note' mailto:someone@example.org",
		},
	},
	{
		names:  []string{"mid", "cid"},
		syntax: []string{"mid:message-id[/content-id]", "mid:message-id/", "cid:content-id"},
		text: "RFC 2392 (RFC 1630's mid and cid). A message of your mail by its Message-ID, written without " +
			"its <> and with \"/\" as %2F: fetch looks it up in the mailbox --mailbox (or $MAIL) names, a Maildir, " +
			"an mbox file or an IMAP mailbox (imaps://user@host/INBOX, opened read-only), and writes it byte for " +
			"byte. mid:id/cid is the body part with that Content-ID, decoded, with its own type; mid:id/ lists " +
			"the parts; cid:cid is a part of the --message file, or of the message the last mid: URL named. With " +
			"a news server set, an id the mailbox lacks is fetched as news:id. A server can never send fetch to " +
			"a mid: or cid: URL.",
		groups: []string{"mid and cid", "TLS"},
		examples: []string{
			"fetch --mailbox ~/Maildir mid:20241220.1200@example.org",
			"fetch --mailbox imaps://ann@mail.example.org/INBOX mid:20241220.1200@example.org/logo@example.org",
			"fetch --message saved.eml cid:logo@example.org",
		},
	},
}

// findTopic returns the topic of a scheme name, or nil.
func findTopic(name string) *topic {
	for i := range topics {
		for _, n := range topics[i].names {
			if n == name {
				return &topics[i]
			}
		}
	}
	return nil
}

// jsonHelp is "fetch help json" and the man page's JSON OUTPUT section:
// the records of --json (internal/records), in words; records.schema.json says
// the same to a program.
var jsonHelp = struct {
	paragraphs []string
	examples   []string
}{
	paragraphs: []string{
		"--json writes JSON Lines on standard output: one record a line, one per event, each an object " +
			"with \"kind\" and \"input\" (the URL as given, its password masked), so the records of several " +
			"URLs can be told apart. Their schema is records.schema.json in fetch's source (internal/records).",
		"A URL gives zero or more \"entry\" records, its listing's entries as they stream in: listing (the " +
			"listing's URL), name, url (the entry's own), type (file, dir, link, info, search, session, " +
			"article, group, error or other, whatever the scheme), size (-1: unknown), time, title, media (a " +
			"media type), target (a link's), item (a gopher item's type character) and attrs; " +
			"\"entry_error\" for a listing line that does not parse; \"retry\" when --retry tries again; and " +
			"then exactly one record that ends it.",
		"That record's kind is document (written to -o or -O; without them, read and counted), listing, " +
			"head (what the URL is, nothing transferred: -I), sent (mailto), session (telnet), skipped " +
			"(--no-clobber) or error. It has url (the effective URL, after redirects), status (the " +
			"protocol's reply), media, length (as announced; -1: unknown), offset, bytes (written), " +
			"entries, modified, output (the file, or - for standard output), duration (seconds), attempts, " +
			"meta (headers, Gopher+ attributes), exit_code, and for an error its class (url, not_found, " +
			"auth, unsupported, unsafe, protocol, timeout, connect, tls, interrupted, other) and message.",
		"With -r each file of the walk gives one such record, its input the URL the walk began at: " +
			"document or listing (saved, output its file), skipped (unchanged with -N, or a URL the policy " +
			"does not let the walk follow) or error; a \"mirror\" record ends the run with its totals: files, " +
			"listings, bytes, unchanged, resumed, failed, level, and not_followed by reason (level, host, " +
			"scheme, parent, rejected, symlink, policy).",
		"With --json no document goes to standard output: give -o or -O; a session (telnet) shows on " +
			"standard error. Strings keep their characters " +
			"exactly; control characters are written as \\u escapes, so that a record shown on a terminal " +
			"cannot drive it.",
	},
	examples: []string{
		"fetch --json ftp://ftp.example.org/pub/ | jq -r 'select(.kind == \"entry\") | .url'",
		"fetch --json -O -i urls.txt | jq 'select(.kind == \"error\")'",
		"fetch -r --json ftp://ftp.example.org/pub/ | jq 'select(.kind == \"mirror\")'",
	},
}
