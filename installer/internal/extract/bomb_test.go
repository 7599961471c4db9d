package extract

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/testarchive"
)

// small keeps the tests' disk use to megabytes: the ratio applies above a
// 1 MiB floor instead of 64 MiB.
var small = Limits{RatioFloor: 1 << 20}

// Extract names the archive file and the entry where the budget ran out.
func TestExtractRefusesExpansionBomb(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "bomb.zip")
	body := testarchive.HostileZip(t, []testarchive.Entry{testarchive.Regular("a", "x"), testarchive.Regular("zeros", strings.Repeat("\x00", 4<<20))})
	os.WriteFile(arch, body, 0o644)
	dest := filepath.Join(dir, "dest")
	err := Extract(context.Background(), arch, dest, small)
	want := "extract " + arch + ": archive expands past 1 MiB, 100× its " + approxBytes(int64(len(body))) + ` download (at entry "zeros"): refusing a decompression bomb`
	if !errors.Is(err, ErrUnsafeArchive) || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Errorf("dest left behind after a refused bomb")
	}
}

func TestBudget(t *testing.T) {
	def := Limits{}.WithDefaults()
	cases := []struct {
		download, want int64
	}{
		{0, 64 << 20},                // size unknown: the floor
		{100 << 10, 64 << 20},        // small archive: the floor
		{3 << 20, 300 << 20},         // 3 MiB zip: 300 MiB, not 4 GiB
		{64 << 20, 4 << 30},          // large archive: the total cap
		{math.MaxInt64 / 2, 4 << 30}, // no overflow
	}
	for _, c := range cases {
		if got := budget(def, c.download); got != c.want {
			t.Errorf("budget(%d) = %d, want %d", c.download, got, c.want)
		}
	}
	err := tooLarge(def, "archive", 3<<20+1<<19, "")
	if want := "archive expands past 350 MiB, 100× its 3.5 MiB download: refusing a decompression bomb"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}
