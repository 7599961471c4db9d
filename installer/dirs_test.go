package installer

import (
	"path/filepath"
	"testing"
)

// A Go editor that takes DefaultDirs shares acp's installs and cache:
// ACP_HOME moves both, as it does for the acp command (docs/cli.md).
func TestDefaultDirsFollowACPHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("ACP_HOME", home)
	d, err := DefaultDirs()
	if err != nil || d.Data != home || d.Cache != filepath.Join(home, "cache") {
		t.Errorf("DefaultDirs() = %+v, %v; want data %s and cache %s", d, err, home, filepath.Join(home, "cache"))
	}
}
