package installer

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func TestVerifyArchive(t *testing.T) {
	srv := newServer(t)
	good := makeZip(t, []entry{exe("goose-package/goose.exe", "MZ")})
	nested := makeTar(t, []entry{exe("goose-1.0/goose", agentScript)}, "bz2")
	slip := makeTar(t, []entry{file("../x", "x")}, "gz")
	goodURL, nestedURL, slipURL := srv.add("/g.zip", good), srv.add("/n.tbz2", nested), srv.add("/s.tgz", slip)
	cases := []struct {
		name  string
		t     registry.BinaryTarget
		errIs error
	}{
		{"good with backslash cmd", registry.BinaryTarget{Archive: goodURL, Cmd: `./goose-package\goose.exe`, SHA256: sha(good)}, nil},
		{"sha256 mismatch", registry.BinaryTarget{Archive: goodURL, Cmd: "x", SHA256: sha(nested)}, ErrChecksum},
		{"cmd nested under a top folder", registry.BinaryTarget{Archive: nestedURL, Cmd: "./goose"}, ErrCmdMissing},
		{"unsafe", registry.BinaryTarget{Archive: slipURL, Cmd: "x"}, ErrUnsafeArchive},
		{"unreachable", registry.BinaryTarget{Archive: srv.URL + "/nope", Cmd: "x"}, ErrDownload},
	}
	tmp := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := VerifyArchive(context.Background(), nil, tc.t, tmp)
			if tc.errIs == nil && err != nil || tc.errIs != nil && !errors.Is(err, tc.errIs) {
				t.Errorf("err = %v, want %v", err, tc.errIs)
			}
			if err != nil && !strings.Contains(err.Error(), tc.t.Archive) {
				t.Errorf("message does not name the URL: %v", err)
			}
		})
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("VerifyArchive left %d entries in tmp", len(entries))
	}
}
