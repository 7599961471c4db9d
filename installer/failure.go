package installer

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/store"
	"github.com/agentclientprotocol/acp-registry-go/internal/failmemo"
)

// DefaultFailureMemory is how long a failed install is reported again
// instead of retried: long enough that an editor starting an agent on every
// keystroke does not wait 9–18 s each time (issue 10), short enough that a
// network that came back is tried again soon.
const DefaultFailureMemory = 5 * time.Minute

// failureInputs fingerprints what an install of req as c depends on
// besides its id and version: what was asked (the archive or package, the
// distribution), where runtimes come from (the mirrors), the machine's
// runtimes and the settings npm and uv read, and the caller's Settings.
// A failure is remembered for these inputs only (issue 26): the user
// who installs Node.js, sets ACP_NODE_MIRROR or edits the config file
// gets a new attempt, not the old error.
func (in *Installer) failureInputs(req Request, c Choice, rt *runtimes.Host) string {
	return failmemo.Key(func(h io.Writer) {
		fmt.Fprintf(h, "%s|%t|%s|%s|%s|%s|%t|%t|%t|%s|%s|%s|%q|%q|%q\n",
			c.Kind, c.Preview, req.Dist, req.PackageOverride, in.NodeMirror, in.UVMirror,
			in.ManageRuntimes, in.Offline, in.AllowPrivateURLs, in.NPM, in.UV, in.Node, in.NPMArgs, in.UVArgs, in.Settings)
		if c.Binary != nil {
			fmt.Fprintf(h, "%s %s %s\n", c.Target, c.Binary.Archive, c.Binary.SHA256)
		}
		if c.Package != nil {
			fmt.Fprintf(h, "%s\n", c.Package.Package)
		}
		io.WriteString(h, rt.Stamp())
	})
}

// rememberedKinds are the sentinels a remembered failure keeps, so that it
// maps to the same error code as the original.
var rememberedKinds = []struct {
	name string
	err  error
}{
	{"install-failed", ErrInstallFailed},
	{"network", ErrDownload},
	{"integrity", ErrChecksum},
	{"unsafe-archive", ErrUnsafeArchive},
	{"unsupported-archive", ErrUnsupportedArchive},
	{"cmd-missing", ErrCmdMissing},
	{"runtime-missing", ErrRuntimeMissing},
}

// failureMemo is CacheDir/failed/<id>@<version>.json.
func (in *Installer) failureMemo(id, version string) failmemo.Memo {
	m := failmemo.Memo{For: DefaultFailureMemory}
	if in.FailureMemory > 0 {
		m.For = in.FailureMemory
	}
	if in.CacheDir != "" && store.CheckIDVersion(id, version) == nil {
		m.Path = filepath.Join(in.CacheDir, "failed", id+"@"+version+".json")
	}
	return m
}

func (in *Installer) rememberFailure(id, version, inputs string, err error) {
	f := failmemo.Failure{At: in.now().UTC(), Message: err.Error(), Inputs: inputs}
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		f.Hint = h.Hint()
	}
	for _, k := range rememberedKinds {
		if errors.Is(err, k.err) {
			f.Kinds = append(f.Kinds, k.name)
		}
	}
	in.failureMemo(id, version).Remember(f)
}

func (in *Installer) forgetFailure(id, version string) { in.failureMemo(id, version).Forget() }

// recalledFailure returns the failure of a recent attempt, worded as such,
// or nil when there is none (or it is older than FailureMemory).
func (in *Installer) recalledFailure(id, version, inputs string) error {
	m := in.failureMemo(id, version)
	f, age, out := m.Recall(inputs, in.now())
	switch out {
	case failmemo.Changed:
		in.debugf("%s %s failed before with other inputs (a runtime, mirror or setting changed): trying again", id, version)
		return nil
	case failmemo.None:
		return nil
	}
	// resolve and run have no --force: name the command that has one.
	e := &recalled{msg: fmt.Sprintf("%s (this failed %s ago; acp tries again after %s, or at once with acp install %s --force)", f.Message, age.Round(time.Second), m.For, id), hint: f.Hint}
	for _, k := range rememberedKinds {
		if f.Has(k.name) {
			e.kinds = append(e.kinds, k.err)
		}
	}
	if len(e.kinds) == 0 {
		e.kinds = []error{ErrInstallFailed}
	}
	return e
}

// recalled is a remembered failure: the same message and kinds.
type recalled struct {
	msg   string
	kinds []error
	hint  string
}

func (e *recalled) Error() string   { return e.msg }
func (e *recalled) Hint() string    { return e.hint }
func (e *recalled) Unwrap() []error { return e.kinds }
