package installer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/store"
)

// A receipt is a file under ACP_HOME that anything running as the user
// can edit: its toolDir names a folder a reinstall removes, so one that
// is not uv's own (".uv-…", beside the versions) makes the receipt
// untrusted instead of steering the removal outside the agent's folder.
func TestReceiptToolDirCannotSteerRemoval(t *testing.T) {
	for _, toolDir := range []string{"../../../victim", ".", "..", "1.0.0", ".uv-x/../../victim", "/tmp/victim"} {
		t.Run(toolDir, func(t *testing.T) {
			srv := newServer(t)
			in := newInstaller(t)
			body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
			url := srv.add("/a.tgz", body)
			m := binaryManifest("demo", "1.0.0", url, "agent", sha(body))
			r, _, err := in.Install(context.Background(), Request{Agent: m})
			if err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(filepath.Dir(in.Root), "victim")
			if err := os.MkdirAll(victim, 0o755); err != nil {
				t.Fatal(err)
			}
			receipt := filepath.Join(r.Dir, store.ReceiptFile)
			data, _ := os.ReadFile(receipt)
			edited := strings.Replace(string(data), `"launch"`, `"toolDir": "`+toolDir+`", "launch"`, 1)
			if err := os.WriteFile(receipt, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := in.Install(context.Background(), Request{Agent: m, Force: true}); err != nil {
				t.Fatalf("forced reinstall: %v", err)
			}
			if _, err := os.Stat(victim); err != nil {
				t.Errorf("a folder outside the agent's was removed: %v", err)
			}
			if cur, err := in.Current("demo"); err != nil || cur.Version != "1.0.0" {
				t.Errorf("after the reinstall: %+v, %v", cur, err)
			}
		})
	}
}

// A receipt is read back with a size cap; one written past it made the
// install invisible (not installed, so every resolve installed it again)
// while install said it succeeded. Such an install fails instead.
func TestReceiptTooLargeFailsTheInstall(t *testing.T) {
	srv := newServer(t)
	in := newInstaller(t)
	body := makeTar(t, []entry{exe("agent", agentScript)}, "gz")
	url := srv.add("/a.tgz", body)
	m := binaryManifest("demo", "1.0.0", url, "agent", sha(body))
	tg := m.Distribution.Binary[testPlatform]
	tg.Args = []string{strings.Repeat("<", store.MaxReceipt/4)} // JSON writes each as \u003c
	m.Distribution.Binary[testPlatform] = tg
	_, _, err := in.Install(context.Background(), Request{Agent: m})
	if err == nil || !strings.Contains(err.Error(), "receipt") {
		t.Fatalf("err = %v, want the install refused for its receipt's size", err)
	}
	if _, err := os.Stat(filepath.Join(in.Root, "agents", "demo", "1.0.0")); !os.IsNotExist(err) {
		t.Errorf("the version folder exists after the failed install")
	}
}
