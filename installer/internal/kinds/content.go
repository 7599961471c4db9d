package kinds

import (
	"bytes"
	"io"
	"os"
	"path"
	"strings"
)

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
