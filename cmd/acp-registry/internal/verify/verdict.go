package verify

import "github.com/agentclientprotocol/acp-registry-go/internal/acpclient"

// Verdict is a matrix row's result in one word, as the matrix's summary
// counts rows: initialize answered and session/new made a session
// (works), asked for sign-in first (sign-in), or either failed (fails).
type Verdict string

// The verdicts; NotProbed is also the verdict of an agent the snapshot
// has no row for.
const (
	VerdictWorks     Verdict = "works"
	VerdictSignIn    Verdict = "sign-in"
	VerdictFails     Verdict = "fails"
	VerdictNotProbed Verdict = "not-probed"
)

// Verdict classifies the row. An agent that could not be started at all
// (no distribution runs here: initialize not probed) was not probed.
func (r *MatrixRow) Verdict() Verdict {
	switch r.Initialize.Status {
	case acpclient.ProbeSuccess:
	case acpclient.ProbeNotProbed, "":
		return VerdictNotProbed
	default:
		return VerdictFails
	}
	switch r.SessionNew.Status {
	case acpclient.ProbeSuccess:
		return VerdictWorks
	case acpclient.ProbeAuthRequired:
		return VerdictSignIn
	}
	return VerdictFails
}
