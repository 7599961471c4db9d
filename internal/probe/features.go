package probe

import (
	"context"
	"path/filepath"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/acpclient"
)

// Features are what an agent can do beyond the handshake: what its
// initialize answer advertises (logout, session list, close, resume,
// fork, loadSession) and whether session/set_model applies, which no
// capability says: a session/new answer that carries model state does,
// as the registry's matrix reads it.
type Features struct {
	acpclient.Advertised
	// SetModel is nil when session/new did not succeed (SessionNew says
	// how it ended), so model state could not be seen.
	SetModel *bool `json:"setModel"`
	// SessionNew is the status of the session/new sent to find out
	// (acpclient's probe statuses: success, auth_required, …).
	SessionNew string `json:"sessionNew"`
}

// SessionNewTimeout bounds the session/new of ProbeFeatures.
const SessionNewTimeout = 5 * time.Second

// ProbeFeatures reads init's capabilities and sends one session/new in
// workDir (the sandbox's) to see model state. Use it as a handshake's
// AfterInit.
func ProbeFeatures(ctx context.Context, c *acpclient.Client, workDir string, init *acpclient.InitializeResult) Features {
	f := Features{Advertised: init.Advertised()}
	cwd := workDir
	if abs, err := filepath.Abs(workDir); err == nil {
		cwd = abs
	}
	o, res := c.Probe(ctx, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, SessionNewTimeout)
	f.SessionNew = o.Status
	if o.Status == acpclient.ProbeSuccess {
		m := acpclient.HasModels(res)
		f.SetModel = &m
	}
	return f
}
