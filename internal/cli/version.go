package cli

import (
	"runtime/debug"
	"strings"
)

// Version is the release version, set at link time by release builds:
//
//	go build -ldflags "-X github.com/agentclientprotocol/acp-registry-go/internal/cli.Version=v1.2.3"
//
// Empty: the module version recorded in the binary (go install …@v1.2.3),
// else "(devel)".
var Version string

// Commit is the commit a release was built from, set at link time beside
// Version (-X …/internal/cli.Commit=0123abc). Empty: the vcs.revision the
// go command recorded, when it did.
var Commit string

// VersionString is what --version prints after the program name: the
// version and the commit it was built from ("v1.2.3 (commit 0123abcdef12,
// modified)"), as far as the build recorded them.
func VersionString() string {
	return versionString(Version, Commit, debug.ReadBuildInfo)
}

func versionString(linked, commit string, read func() (*debug.BuildInfo, bool)) string {
	v, rev := linked, commit
	var modified string
	if bi, ok := read(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if rev == "" {
					rev = s.Value
				}
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	// A pseudo-version already names its commit; say it once.
	if strings.HasSuffix(v, rev) {
		rev = ""
	}
	var extra []string
	if rev != "" {
		extra = append(extra, "commit "+rev)
	}
	if modified == "true" {
		extra = append(extra, "modified")
	}
	if len(extra) == 0 {
		return v
	}
	return v + " (" + strings.Join(extra, ", ") + ")"
}
