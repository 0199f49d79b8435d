package ftp

import (
	"mime"
	"path"
	"strings"
)

// archiveTypes are the media types of the suffixes common in FTP
// archives (RFC 1738 section 3.2.3: the type "can only be guessed from
// the name"). They are known without the system's MIME database, which
// takes milliseconds to load and differs from machine to machine; other
// suffixes are looked up there.
var archiveTypes = map[string]string{
	".txt":  "text/plain",
	".text": "text/plain",
	".asc":  "text/plain",
	".md":   "text/markdown",
	".htm":  "text/html",
	".html": "text/html",
	".css":  "text/css",
	".csv":  "text/csv",
	".xml":  "text/xml",
	".json": "application/json",
	".pdf":  "application/pdf",
	".ps":   "application/postscript",
	".gz":   "application/gzip",
	".tgz":  "application/gzip",
	".bz2":  "application/x-bzip2",
	".xz":   "application/x-xz",
	".zst":  "application/zstd",
	".Z":    "application/x-compress",
	".tar":  "application/x-tar",
	".zip":  "application/zip",
	".7z":   "application/x-7z-compressed",
	".iso":  "application/x-iso9660-image",
	".deb":  "application/vnd.debian.binary-package",
	".rpm":  "application/x-rpm",
	".sig":  "application/pgp-signature",
	".gif":  "image/gif",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".png":  "image/png",
	".svg":  "image/svg+xml",
	".bin":  "application/octet-stream",
	".exe":  "application/octet-stream",
}

// suffixType guesses the media type of a name from its suffix, or "".
func suffixType(name string) string {
	ext := path.Ext(name)
	if ext == "" {
		return ""
	}
	if t, ok := archiveTypes[ext]; ok {
		return t
	}
	if t, ok := archiveTypes[strings.ToLower(ext)]; ok {
		return t
	}
	return mime.TypeByExtension(ext)
}

// mediaType is a document's media type: its suffix's, else text/plain
// for an ASCII transfer and application/octet-stream for a binary one.
func mediaType(name string, typ byte) string {
	if t := suffixType(name); t != "" {
		return t
	}
	if typ == typeASCII {
		return "text/plain"
	}
	return "application/octet-stream"
}
