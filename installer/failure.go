package installer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/runtimes"
	"github.com/agentclientprotocol/acp-registry-go/installer/internal/store"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// DefaultFailureMemory is how long a failed install is reported again
// instead of retried: long enough that an editor starting an agent on every
// keystroke does not wait 9–18 s each time (issue 10), short enough that a
// network that came back is tried again soon.
const DefaultFailureMemory = 5 * time.Minute

// failure is CacheDir/failed/<id>@<version>.json.
type failure struct {
	At      time.Time `json:"at"`
	Message string    `json:"message"`
	Kinds   []string  `json:"kinds"`
	Hint    string    `json:"hint,omitempty"`
	// Inputs fingerprints what the attempt depended on (failureInputs):
	// when any of it changes, the failure is forgotten.
	Inputs string `json:"inputs"`
}

// failureInputs fingerprints what an install of req as c depends on
// besides its id and version: what was asked (the archive or package, the
// distribution), where runtimes come from (the mirrors), the machine's
// runtimes and the settings npm and uv read, and the caller's Settings.
// A failure is remembered for these inputs only (issue 26): the user
// who installs Node.js, sets ACP_NODE_MIRROR or edits the config file
// gets a new attempt, not the old error.
func (in *Installer) failureInputs(req Request, c Choice, rt *runtimes.Host) string {
	h := sha256.New()
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
	return hex.EncodeToString(h.Sum(nil))[:32]
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

func (in *Installer) failureFile(id, version string) string {
	if in.CacheDir == "" || store.CheckIDVersion(id, version) != nil {
		return ""
	}
	return filepath.Join(in.CacheDir, "failed", id+"@"+version+".json")
}

func (in *Installer) failureMemory() time.Duration {
	if in.FailureMemory > 0 {
		return in.FailureMemory
	}
	return DefaultFailureMemory
}

func (in *Installer) rememberFailure(id, version, inputs string, err error) {
	p := in.failureFile(id, version)
	if p == "" {
		return
	}
	f := failure{At: in.now().UTC(), Message: err.Error(), Kinds: []string{}, Inputs: inputs}
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		f.Hint = h.Hint()
	}
	for _, k := range rememberedKinds {
		if errors.Is(err, k.err) {
			f.Kinds = append(f.Kinds, k.name)
		}
	}
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	data, _ := json.Marshal(f)
	tmp, e := os.CreateTemp(filepath.Dir(p), ".fail-*")
	if e != nil {
		return
	}
	_, e = tmp.Write(data)
	if cerr := tmp.Close(); e == nil {
		e = cerr
	}
	if e == nil {
		e = store.Rename(context.Background(), tmp.Name(), p)
	}
	if e != nil {
		os.Remove(tmp.Name())
	}
}

func (in *Installer) forgetFailure(id, version string) {
	if p := in.failureFile(id, version); p != "" {
		os.Remove(p)
	}
}

// recalledFailure returns the failure of a recent attempt, worded as such,
// or nil when there is none (or it is older than FailureMemory).
func (in *Installer) recalledFailure(id, version, inputs string) error {
	p := in.failureFile(id, version)
	if p == "" {
		return nil
	}
	data, err := registry.ReadLimited(p, 1<<20)
	if err != nil {
		return nil
	}
	var f failure
	if json.Unmarshal(data, &f) != nil || f.Message == "" {
		return nil
	}
	if f.Inputs != inputs {
		in.debugf("%s %s failed before with other inputs (a runtime, mirror or setting changed): trying again", id, version)
		return nil
	}
	age := in.now().Sub(f.At)
	if age < 0 || age >= in.failureMemory() {
		return nil
	}
	// resolve and run have no --force: name the command that has one.
	e := &recalled{msg: fmt.Sprintf("%s (this failed %s ago; acp tries again after %s, or at once with acp install %s --force)", f.Message, age.Round(time.Second), in.failureMemory(), id), hint: f.Hint}
	for _, name := range f.Kinds {
		for _, k := range rememberedKinds {
			if k.name == name {
				e.kinds = append(e.kinds, k.err)
			}
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
