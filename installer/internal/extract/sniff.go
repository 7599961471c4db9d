package extract

import (
	"net/url"
	"path"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
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

// CheckContent refuses a download that is not what its URL and the
// manifest say: fm is what identify found, head the file's first bytes.
func CheckContent(rawURL string, fm Format, head []byte) error {
	shown := remote.RedactURL(rawURL)
	want := archiveNamed(rawURL)
	if want != "" && fm.name != want {
		what := kinds.DescribeContent(head)
		if fm.IsArchive() || fm.IsCompressed() {
			what = "a " + fm.name + " file"
		} else if kinds.LooksExecutable(head) {
			what = "an executable"
		}
		return errorf(ErrWrongContent, "the download from %s is not the %s archive its name says: it is %s", shown, want, what)
	}
	if !fm.IsArchive() && !fm.IsCompressed() && !kinds.LooksExecutable(head) {
		return NotExecutable("the download from "+shown, head)
	}
	return nil
}

// NotExecutable refuses a file that should be a program, naming what it is.
func NotExecutable(what string, head []byte) error {
	return errorf(ErrWrongContent, "%s is neither an archive (zip, tar.gz, tar.bz2) nor an executable (ELF, Mach-O, PE or a #! script): it is %s", what, kinds.DescribeContent(head))
}
