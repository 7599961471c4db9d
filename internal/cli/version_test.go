package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionString(t *testing.T) {
	info := func(v string, settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{Main: debug.Module{Version: v}}
			for i := 0; i+1 < len(settings); i += 2 {
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return bi, true
		}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		linked string
		commit string
		read   func() (*debug.BuildInfo, bool)
		want   string
	}{
		{"", "", info("v1.2.3"), "v1.2.3"},
		{"", "", info("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "(devel) (commit 0123456789ab, modified)"},
		{"", "", info("v0.0.0-20261123120000-0123456789ab", "vcs.revision", rev), "v0.0.0-20261123120000-0123456789ab"},
		{"v2.0.0", "", info("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "v2.0.0 (commit 0123456789ab)"},
		{"", "", func() (*debug.BuildInfo, bool) { return nil, false }, "(devel)"},
		{"v3.0.0", "abc1234", func() (*debug.BuildInfo, bool) { return nil, false }, "v3.0.0 (commit abc1234)"},
	} {
		if got := versionString(c.linked, c.commit, c.read); got != c.want {
			t.Errorf("versionString(%q) = %q, want %q", c.linked, got, c.want)
		}
	}
}
