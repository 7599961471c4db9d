// Package failmemo remembers that an attempt failed, for a while and for
// the inputs it had, so that the next attempt with the same inputs says the
// failure again at once instead of waiting on the same dead network: a
// failed install (package installer) and a failed registry fetch
// (registry/source). What the inputs are, and how the failure is worded
// when it is said again, is the caller's.
package failmemo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/atomicfile"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Failure is one remembered failure, the record file's JSON.
type Failure struct {
	At      time.Time `json:"at"`
	Message string    `json:"message"`
	// Kinds name the error's kinds, so that the failure said again has the
	// code the first one had. The caller gives the names their meaning.
	Kinds []string `json:"kinds"`
	Hint  string   `json:"hint,omitempty"`
	// Inputs is a Key of what the attempt depended on: when any of it
	// changes, the failure is forgotten.
	Inputs string `json:"inputs"`
}

// Has says whether the failure carries the kind named kind.
func (f Failure) Has(kind string) bool {
	for _, k := range f.Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// Key is a digest of what write writes: it is compared, never read back,
// so a proxy URL's password or a mirror's token does not reach the disk.
func Key(write func(w io.Writer)) string {
	h := sha256.New()
	write(h)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// maxRecord bounds what is read of a record: a failure message with an
// npm log tail fits, a file grown by something else is ignored.
const maxRecord = 1 << 20

// Memo is where one attempt's failure is remembered (a file; "" remembers
// nothing) and for how long.
type Memo struct {
	Path string
	For  time.Duration
}

// Remember records f, replacing the file whole so that another process
// reads the old record or the new. Best effort: a record that cannot be
// written costs a retry, not a result.
func (m Memo) Remember(f Failure) {
	if m.Path == "" {
		return
	}
	if f.Kinds == nil {
		f.Kinds = []string{}
	}
	data, err := json.Marshal(f)
	if err != nil || os.MkdirAll(filepath.Dir(m.Path), 0o755) != nil {
		return
	}
	_ = atomicfile.Write(m.Path, data, 0o600)
}

// Forget removes the record: the attempt succeeded.
func (m Memo) Forget() {
	if m.Path != "" {
		os.Remove(m.Path)
	}
}

// Outcome is what Recall found.
type Outcome int

const (
	// None: no usable record (missing, damaged, not a regular file,
	// oversized, expired, or from the future after a clock change).
	None Outcome = iota
	// Changed: a recent failure, but with other inputs: try again.
	Changed
	// Recalled: the failure stands; say it again.
	Recalled
)

// Recall reads the record and judges it at now against inputs. The
// failure and its age mean something only when the outcome is Recalled.
// A record is untrusted (any process of the user may write the folder): a
// FIFO, a device or a symbolic link in its place is not opened, and a
// record that is not one is none.
func (m Memo) Recall(inputs string, now time.Time) (Failure, time.Duration, Outcome) {
	var f Failure
	if m.Path == "" {
		return f, 0, None
	}
	data, err := registry.ReadRegularNoFollow(m.Path, maxRecord)
	if err != nil || json.Unmarshal(data, &f) != nil || f.Message == "" || f.At.IsZero() {
		return Failure{}, 0, None
	}
	age := now.Sub(f.At)
	if age < 0 || age >= m.For {
		return Failure{}, 0, None
	}
	if f.Inputs != inputs {
		return Failure{}, 0, Changed
	}
	return f, age, Recalled
}
