package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/probe"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// verify reads the protocolVersion an agent answers: 1 as ever, 2 in v2's
// own shape with a note on who can use it, an untyped v2 method and any
// other version are failures.
func TestVerifyJudgesProtocolVersions(t *testing.T) {
	behaviours := map[string]string{"one": fakeagent.Valid, "two": fakeagent.V2, "two-untyped": fakeagent.V2Untyped, "three": fakeagent.V3}
	var agents []*registry.Manifest
	for id := range behaviours {
		agents = append(agents, manifest(id, registry.KindNpx))
	}
	rep, err := Run(context.Background(), agents, Options{Jobs: 4, Timeout: 10 * time.Second, Sandbox: t.TempDir(),
		Install: fakeInstall(t, behaviours), Client: acpclient.Implementation{Name: "verify-test", Version: "0.0.0"}})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]*Result{}
	for _, r := range rep.Results {
		by[r.ID] = r
	}
	if r := by["one"]; r.Status != probe.StatusPass || r.Clients != "v1" || len(r.Warnings) != 0 {
		t.Errorf("v1: %+v", r)
	}
	if r := by["two"]; r.Status != probe.StatusPass || r.Clients != "v2" || r.AgentInfo == nil || r.AgentInfo.Name != "fake-agent-v2" ||
		len(r.AuthMethods) != 2 || r.AuthMethods[0].ID != "oauth" || r.Advertised == nil || !r.Advertised.SessionFork || !r.Advertised.Logout ||
		len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "only clients that speak v2 can use it") {
		t.Errorf("v2: %+v (advertised %+v)", r, r.Advertised)
	}
	if r := by["two-untyped"]; r.Status != probe.StatusFail || !strings.Contains(r.Reason, "auth method oauth has no type: protocol version 2 requires one") {
		t.Errorf("v2 untyped: %+v", r)
	}
	if r := by["three"]; r.Status != probe.StatusFail || r.Clients != "none" || !strings.Contains(r.Reason, "answered protocolVersion 3") {
		t.Errorf("v3: %+v", r)
	}
}

// The matrix reads a v2 answer's capabilities where v2 puts them, shows
// logout, and records an unknown version as a failed initialize.
func TestMatrixReadsVersions(t *testing.T) {
	mx := runMatrix(t, map[string]string{"two": fakeagent.V2, "three": fakeagent.V3, "one": fakeagent.SessionsClose}, nil)
	two := row(t, mx, "two")
	want := Capabilities{LoadSession: true, SessionList: true, SessionFork: true, SessionClose: true, Logout: true}
	if two.Initialize.Status != acpclient.ProbeSuccess || two.Capabilities != want || string(two.ProtocolVersion) != "2" {
		t.Errorf("v2 row: %+v", two)
	}
	if three := row(t, mx, "three"); three.Initialize.Status != acpclient.ProbeError || three.Initialize.Message == nil || !strings.Contains(*three.Initialize.Message, "protocolVersion 3") {
		t.Errorf("v3 row: %+v", three.Initialize)
	}
	if one := row(t, mx, "one"); !one.Capabilities.Logout || !one.Capabilities.SetModel {
		t.Errorf("v1 row: %+v", one.Capabilities)
	}
	var md strings.Builder
	if err := mx.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "loadSession, session/list, session/fork, session/close, logout") {
		t.Errorf("markdown capabilities lack logout:\n%s", md.String())
	}
}

// The public matrix's real rows (three snapshots, ~30 agents each, all
// protocol 1): each agent's recorded answer, rebuilt in the shape it was
// sent, reads back as the matrix recorded it (capabilities, auth types),
// is judged v1, and passes exactly when it offers an agent or terminal
// method.
func TestCorpusAnswersReadAsRecorded(t *testing.T) {
	dir := filepath.Dir(snapshotPath(t))
	for _, name := range []string{"2026-05-03.json", "2026-05-04.json", "2026-08-20.json"} {
		mx, err := ReadMatrix(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var raw struct {
			Agents []struct {
				ID           string
				Capabilities map[string]bool
			}
		}
		data, _ := os.ReadFile(filepath.Join(dir, name))
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, r := range mx.Agents {
			if r.Initialize.Status != acpclient.ProbeSuccess {
				continue
			}
			n++
			c := raw.Agents[i].Capabilities
			session := map[string]any{}
			for key, flag := range map[string]string{"list": "sessionList", "fork": "sessionFork", "resume": "sessionResume"} {
				if c[flag] {
					session[key] = map[string]any{}
				}
			}
			var methods []map[string]string
			for j, typ := range r.AuthMethods {
				methods = append(methods, map[string]string{"id": fmt.Sprintf("m%d", j), "name": typ, "type": typ})
			}
			answer, _ := json.Marshal(map[string]any{"protocolVersion": json.RawMessage(r.ProtocolVersion),
				"agentCapabilities": map[string]any{"loadSession": c["loadSession"], "sessionCapabilities": session}, "authMethods": methods})
			init, err := acpclient.ParseInitializeResult(answer)
			if err != nil {
				t.Fatalf("%s %s: %v", name, r.ID, err)
			}
			got := advertised(init)
			want := Capabilities{LoadSession: c["loadSession"], SessionList: c["sessionList"], SessionFork: c["sessionFork"], SessionResume: c["sessionResume"]}
			if got != want {
				t.Errorf("%s %s: read %+v, recorded %+v", name, r.ID, got, want)
			}
			if ts := acpclient.Types(init.AuthMethods); strings.Join(ts, ",") != strings.Join(r.AuthMethods, ",") {
				t.Errorf("%s %s: types %v, recorded %v", name, r.ID, ts, r.AuthMethods)
			}
			st, reason := probe.Judge(init)
			pass := slices.Contains(r.AuthMethods, "agent") || slices.Contains(r.AuthMethods, "terminal")
			if probe.Clients(init) != "v1" || (st == probe.StatusPass) != pass {
				t.Errorf("%s %s: %s %q (%s), methods %v", name, r.ID, st, reason, probe.Clients(init), r.AuthMethods)
			}
		}
		if n < 29 {
			t.Errorf("%s: only %d answered rows", name, n)
		}
	}
}
