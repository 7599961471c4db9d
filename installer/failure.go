package installer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

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

func (in *Installer) rememberFailure(id, version string, err error) {
	p := in.failureFile(id, version)
	if p == "" {
		return
	}
	f := failure{At: in.now().UTC(), Message: err.Error(), Kinds: []string{}}
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
func (in *Installer) recalledFailure(id, version string) error {
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
