package runtimes

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
)

// A missing runtime is runtime-missing with the next step in its hint
// (issue 26): what to install, and the two settings that change where acp
// looks (a mirror of its own, or only the machine's runtimes).

// needNode is how a hint names the Node.js requires asks for: "Node.js
// ≥ 22" for a plain lower bound, else the range as written.
func needNode(requires string) string {
	r := strings.TrimSpace(requires)
	if r == "" || r == "*" {
		return "Node.js"
	}
	if low, ok := strings.CutPrefix(r, ">="); ok && !strings.ContainsAny(low, " |<>^~") {
		return "Node.js ≥ " + strings.TrimSpace(low)
	}
	return "Node.js " + r
}

// NodeHint is the next step when no node fits: install one, or let acp
// bring one (from a mirror of the user's), or keep acp to the machine's.
func (h *Host) NodeHint(requires string) string {
	hint := "install " + needNode(requires) + " (your package manager or nodejs.org)"
	if h.Managed != nil {
		hint += ", or set ACP_NODE_MIRROR to a mirror in nodejs.org's layout, or ACP_MANAGED_RUNTIMES=0 to use only your own"
	}
	return hint
}

// UVHint is NodeHint for uv, with uv's own install page.
func (h *Host) UVHint() string {
	hint := "install uv (https://docs.astral.sh/uv/getting-started/installation/)"
	if h.Managed != nil {
		hint += ", or set ACP_UV_MIRROR to a mirror in uv's release layout, or ACP_MANAGED_RUNTIMES=0 to use only your own"
	}
	return hint
}

// runtimeMissing is the error of a runtime that is not here and could
// not be brought: what, why the download failed (fetchErr, nil when none
// was tried), and the hint. A mirror that served other bytes than it
// lists stays an integrity failure (fetchErr's kind).
func runtimeMissing(msg, hint string, fetchErr error) error {
	if fetchErr != nil && errors.Is(fetchErr, kinds.ErrChecksum) {
		return &kinds.Error{Msg: msg, Kind: kinds.ErrChecksum, Err: fetchErr, Help: hint}
	}
	return &kinds.Error{Msg: msg, Kind: kinds.ErrRunnerMissing, Err: fetchErr, Help: hint}
}

// nodeMissing: no node at all for id's package (searched: where it was
// looked for). fetchErr is why acp could not bring one.
func (h *Host) nodeMissing(id, pkg, requires string, searched []string, fetchErr error) error {
	what := fmt.Sprintf("%s (%s) needs %s, and no node was found (looked on %s)", id, pkg, rangeName(requires), strings.Join(searched, ", "))
	if fetchErr != nil {
		what += fmt.Sprintf(", and Node.js could not be downloaded from %s: %v", remote.RedactURL(h.Managed.NodeMirror), fetchErr)
	}
	return runtimeMissing(what, h.NodeHint(requires), fetchErr)
}

// rangeName is requires as a message quotes it.
func rangeName(requires string) string {
	if r := strings.TrimSpace(requires); r != "" {
		return "Node.js " + r
	}
	return "Node.js"
}

// localNodeMissing: an installed agent's node is gone and none is here;
// resolve fetches nothing, so the hint names install --force, which may.
func (h *Host) localNodeMissing(id, pkg, requires string, searched []string) error {
	what := fmt.Sprintf("%s (%s) needs %s, and no node was found (looked on %s)", id, pkg, rangeName(requires), strings.Join(searched, ", "))
	return runtimeMissing(what, h.localNodeHint(id, requires), nil)
}

// localNodeHint is the next step for an installed agent whose node is
// gone: resolve fetches nothing, install --force may.
func (h *Host) localNodeHint(id, requires string) string {
	hint := "install " + needNode(requires) + " (your package manager or nodejs.org)"
	if h.Managed != nil {
		hint += ", or run acp install " + id + " --force to let acp bring one"
	}
	return hint
}
