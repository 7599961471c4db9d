package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit/fakeagent"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Agents choose their method ids, types, names and stderr: none of it may
// reach a terminal or a CI log raw. A newline in a method id must not put
// ::error or ::add-mask:: on a line of its own (GitHub would obey it), and
// the JSON report keeps the exact values.
func TestReportPrintsAgentTextSafely(t *testing.T) {
	install := func(ctx context.Context, m *registry.Manifest, kind registry.Kind, dir string) (launch.Spec, error) {
		if m.ID == "nasty-fail" {
			return fakeagent.Spec(t, fakeagent.HostileText, "ACP_FAKE_NO_TERMINAL", "1"), nil
		}
		if m.ID == "nasty-crash" {
			return fakeagent.Spec(t, fakeagent.ExitNow), nil
		}
		return fakeagent.Spec(t, fakeagent.HostileText), nil
	}
	rep, err := Run(context.Background(), []*registry.Manifest{manifest("nasty-pass", registry.KindNpx), manifest("nasty-fail", registry.KindNpx)}, Options{
		Timeout: 10 * time.Second, Sandbox: t.TempDir(), Install: install, Client: acpclient.Implementation{Name: "verify-test", Version: "0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Pass != 1 || rep.Summary.Fail != 1 {
		t.Fatalf("summary %+v", rep.Summary)
	}
	// Stderr is shown under a failure: make the failing one's tail nasty.
	rep.Results[0].StderrTail = "stderr says " + fakeagent.Nasty + "\n::error::from stderr"

	var text, gh, summary bytes.Buffer
	rep.WriteText(&text)
	if err := rep.WriteGitHub(&gh, &summary, "agents"); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "github": gh.String(), "summary": summary.String()} {
		if i := strings.IndexFunc(out, func(r rune) bool {
			return r == 0x1b || r == 0x07 || r == '\r' || (r >= 0x80 && r <= 0x9f) || r == 0x202e || r == 0x2028
		}); i >= 0 {
			t.Errorf("%s output holds a raw control at byte %d:\n%q", name, i, out)
		}
		ours := regexp.MustCompile(`^::(error|warning) file=agents/nasty-(pass|fail)/agent\.json,title=verify nasty-(pass|fail) \(npx\)::`)
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "::") && !ours.MatchString(line) {
				t.Errorf("%s output has a workflow command the agent wrote: %q", name, line)
			}
		}
	}
	if !strings.Contains(text.String(), "      | ") {
		t.Errorf("the failure's stderr is not shown, indented:\n%s", text.String())
	}
	if !strings.Contains(gh.String(), "::error file=agents/nasty-fail/agent.json") {
		t.Errorf("no annotation for the failure:\n%s", gh.String())
	}
	var js bytes.Buffer
	json.NewEncoder(&js).Encode(rep)
	want, _ := json.Marshal(fakeagent.Nasty)
	if !strings.Contains(js.String(), string(want)) {
		t.Errorf("the JSON report lost the exact method id %s", want)
	}
}
