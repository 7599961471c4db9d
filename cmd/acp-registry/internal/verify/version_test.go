package verify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/fakeagent"
	"github.com/agentclientprotocol/acp-registry-go/internal/probe"
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
