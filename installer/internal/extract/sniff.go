package extract

import (
	"bytes"
	"io"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/download"
)

// archiveNamed is the archive format a download URL's path names ("" when
// it names none). Such a URL must hold that archive: a server that answers
// an error page with status 200 must not have it installed as the agent.
func archiveNamed(rawURL string) string {
	p := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		p = u.Path
	}
	p = strings.ToLower(path.Base(p))
	switch {
	case strings.HasSuffix(p, ".tar.gz"), strings.HasSuffix(p, ".tgz"):
		return "tar.gz"
	case strings.HasSuffix(p, ".tar.bz2"), strings.HasSuffix(p, ".tbz2"), strings.HasSuffix(p, ".tbz"):
		return "tar.bz2"
	case strings.HasSuffix(p, ".zip"):
		return "zip"
	}
	return ""
}

// LooksExecutable reports whether head starts like something an OS runs:
// ELF, Mach-O (thin or fat, either byte order), PE ("MZ") or a #! script.
func LooksExecutable(head []byte) bool {
	for _, m := range [][]byte{
		{0x7f, 'E', 'L', 'F'},
		{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf}, // Mach-O, big-endian
		{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe}, // Mach-O, little-endian
		{0xca, 0xfe, 0xba, 0xbe}, {0xca, 0xfe, 0xba, 0xbf}, // universal (fat)
		[]byte("MZ"), []byte("#!"),
	} {
		if bytes.HasPrefix(head, m) {
			return true
		}
	}
	return false
}

// DescribeContent names what a download that is not what it should be
// looks like, for the error.
func DescribeContent(head []byte) string {
	t := bytes.ToLower(bytes.TrimLeft(head, " \t\r\n\ufeff"))
	t = bytes.TrimPrefix(t, []byte("\xef\xbb\xbf"))
	switch {
	case len(head) == 0:
		return "an empty file"
	case bytes.HasPrefix(t, []byte("<!doctype html")), bytes.HasPrefix(t, []byte("<html")), bytes.HasPrefix(t, []byte("<head")), bytes.HasPrefix(t, []byte("<body")):
		return "an HTML page (the server answered with a web page, likely an error page, instead of the file)"
	case bytes.HasPrefix(t, []byte("<?xml")), bytes.HasPrefix(t, []byte("<")):
		return "an XML or HTML document (likely an error page)"
	case bytes.HasPrefix(t, []byte("{")), bytes.HasPrefix(t, []byte("[")):
		return "a JSON document (likely an error message)"
	case isText(head):
		return "text"
	}
	return "data of an unknown kind"
}

func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// ReadHead returns the first 512 bytes of the file at p.
func ReadHead(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadHeadOf(f)
}

// ReadHeadOf returns the first 512 bytes r gives.
func ReadHeadOf(r io.Reader) ([]byte, error) {
	head := make([]byte, 512)
	n, err := io.ReadFull(r, head)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return head[:n], err
}

// CheckContent refuses a download that is not what its URL and the
// manifest say: fm is what identify found, head the file's first bytes.
func CheckContent(rawURL string, fm Format, head []byte) error {
	shown := download.Redact(rawURL)
	want := archiveNamed(rawURL)
	if want != "" && fm.name != want {
		what := DescribeContent(head)
		if fm.IsArchive() || fm.IsCompressed() {
			what = "a " + fm.name + " file"
		} else if LooksExecutable(head) {
			what = "an executable"
		}
		return errorf(ErrWrongContent, "the download from %s is not the %s archive its name says: it is %s", shown, want, what)
	}
	if !fm.IsArchive() && !fm.IsCompressed() && !LooksExecutable(head) {
		return NotExecutable("the download from "+shown, head)
	}
	return nil
}

// NotExecutable refuses a file that should be a program, naming what it is.
func NotExecutable(what string, head []byte) error {
	return errorf(ErrWrongContent, "%s is neither an archive (zip, tar.gz, tar.bz2) nor an executable (ELF, Mach-O, PE or a #! script): it is %s", what, DescribeContent(head))
}

// ErrorBody reports a file that is surely no program: empty, or a web
// page or JSON document (what servers answer errors with). Installs are
// judged by it rather than by LooksExecutable, so a script without #! in
// an archive is not taken for broken and reinstalled on every resolve.
func ErrorBody(head []byte) bool {
	if LooksExecutable(head) {
		return false
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	t = bytes.TrimPrefix(t, []byte("\xef\xbb\xbf"))
	return len(t) == 0 || t[0] == '<' || t[0] == '{' || t[0] == '['
}

// WindowsScript reports a cmd Windows runs by its extension.
func WindowsScript(p string) bool {
	switch strings.ToLower(path.Ext(strings.ReplaceAll(p, "\\", "/"))) {
	case ".cmd", ".bat", ".ps1", ".com":
		return true
	}
	return false
}
