package verify

import (
	"path/filepath"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

// A row's verdict agrees with the counts the snapshot's own summary
// gives: works and sign-in are the rows whose initialize succeeded, less
// those whose session/new failed otherwise; sign-in is session/new's
// auth_required.
func TestVerdictAgreesWithTheSummary(t *testing.T) {
	mx, err := ReadMatrix(filepath.Join(testkit.RequireCorpusPath(t, "protocol-matrix"), "2026-08-20.json"))
	if err != nil {
		t.Fatal(err)
	}
	count := map[Verdict]int{}
	for i := range mx.Agents {
		r := &mx.Agents[i]
		v := r.Verdict()
		count[v]++
		if r.Initialize.Status == acpclient.ProbeSuccess && r.SessionNew.Status == acpclient.ProbeError && v != VerdictFails {
			t.Errorf("%s: session/new error judged %s", r.ID, v)
		}
	}
	s := mx.Summary
	if count[VerdictSignIn] != s.SessionNewAuthRequired {
		t.Errorf("sign-in %d, the summary's sessionNewAuthRequired %d", count[VerdictSignIn], s.SessionNewAuthRequired)
	}
	if count[VerdictWorks]+count[VerdictSignIn] > s.InitializeSuccess || count[VerdictWorks] == 0 || count[VerdictFails] == 0 {
		t.Errorf("verdicts %v against initializeSuccess %d", count, s.InitializeSuccess)
	}
	if (&MatrixRow{}).Verdict() != VerdictNotProbed {
		t.Error("an empty row is not 'not probed'")
	}
}
