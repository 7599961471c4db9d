package verify

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/probe"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

func TestSelection(t *testing.T) {
	var agents []*registry.Manifest
	for _, id := range []string{"e", "a", "d", "b", "c"} {
		agents = append(agents, manifest(id))
	}
	ids := func(ms []*registry.Manifest) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	kept, unknown := Selection{Skip: []string{"b", "zz", "zz"}, Max: 2, Quarantine: map[string]string{"a": "hangs"}}.Select(agents)
	// a is quarantined: it stays (verify reports it as a skip) and does
	// not count towards the two.
	if got := ids(kept); !reflect.DeepEqual(got, []string{"a", "c", "d"}) || !reflect.DeepEqual(unknown, []string{"zz"}) {
		t.Errorf("kept %v, unknown %v", got, unknown)
	}
	if kept, _ := (Selection{}).Select(agents); len(kept) != 5 {
		t.Errorf("no selection kept %v", ids(kept))
	}
}

// An npm package whose first run installs a launcher into HOME and asks
// for a reinstall (Junie) passes on the one retry, through the launcher.
func TestFirstRunShimIsRetriedOnce(t *testing.T) {
	agents := []*registry.Manifest{manifest("junie", registry.KindNpx), manifest("junie-bin", registry.KindBinary)}
	rep, err := Run(context.Background(), agents, Options{Jobs: 2, Timeout: 10 * time.Second, Sandbox: t.TempDir(),
		Install: fakeInstall(t, map[string]string{"junie": fakeagent.Shim, "junie-bin": fakeagent.Shim}), Client: acpclient.Implementation{Name: "t", Version: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	npx, bin := rep.Results[0], rep.Results[1]
	if npx.Status != probe.StatusPass || len(npx.Warnings) != 1 || !strings.Contains(npx.Warnings[0], "retried once with that HOME, running ") ||
		!strings.Contains(npx.Warnings[0], "/home/.local/bin/"+fakeagent.ShimName) {
		t.Errorf("npx: %+v", npx)
	}
	// Only npm packages install such launchers: a binary is not retried.
	if bin.Status != probe.StatusFail || !strings.Contains(bin.Reason, "Please reinstall") {
		t.Errorf("binary: %+v", bin)
	}
}

// --upstream-initialize sends the public registry's exact request; an
// agent that offers terminal auth only to clients that opt in (as the
// stabilized spec says) then offers none, which is why our verdicts and
// the public matrix can differ.
func TestUpstreamInitialize(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "init.json")
	agents := []*registry.Manifest{manifest("strict", registry.KindNpx)}
	opts := Options{Jobs: 1, Timeout: 10 * time.Second, Sandbox: t.TempDir(),
		Install: fakeInstall(t, map[string]string{"strict": fakeagent.TerminalIfOptedIn}, "ACP_FAKE_INIT_RECORD", rec),
		Client:  acpclient.Implementation{Name: "acp-registry", Version: "0"}}
	ours, err := Run(context.Background(), agents, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := ours.Results[0]; r.Status != probe.StatusPass || len(r.AuthMethods) != 1 || r.AuthMethods[0].Type != "terminal" {
		t.Errorf("our initialize: %+v", r)
	}
	opts.InitializeParams = acpclient.UpstreamInitializeParams()
	theirs, err := Run(context.Background(), agents, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := theirs.Results[0]; r.Status != probe.StatusFail || !strings.Contains(r.Reason, "authMethods is empty") {
		t.Errorf("upstream's initialize: %+v", r)
	}
	sent, _ := os.ReadFile(rec)
	// protocol_matrix.py's build_initialize_params, member for member and
	// in its order.
	const want = `{"protocolVersion":1,"clientInfo":{"name":"ACP Registry Protocol Matrix","version":"0.1.0"},"clientCapabilities":{"terminal":true,"fs":{"readTextFile":true,"writeTextFile":true},"_meta":{"terminal_output":true,"terminal-auth":true}}}`
	if string(sent) != want {
		t.Errorf("sent %s\nwant %s", sent, want)
	}
}
