package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/probe"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// A daily run over a large registry spreads over CI runners: each runner
// takes one shard of the agents (verify --shard I/N, matrix --shard I/N)
// and a merge step joins the shards' outputs into what one run over every
// agent writes.

// Shard is the I-th (1-based) of N slices of the agents.
type Shard struct{ I, N int }

// ErrShard is returned (wrapped) for a malformed --shard or shard output.
var ErrShard = errors.New("bad shard")

// ParseShard reads "I/N" with 1 <= I <= N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("%w: %q is not I/N with 1 <= I <= N, e.g. 2/4", ErrShard, s)
	}
	return Shard{I: i, N: n}, nil
}

// Of returns the shard's agents: sorted by id, every N-th starting at the
// I-th, so that the shards are deterministic, disjoint, cover every agent
// and each gets a mix of the alphabet rather than one stretch of it.
func (s Shard) Of(agents []*registry.Manifest) []*registry.Manifest {
	sorted := append([]*registry.Manifest(nil), agents...)
	sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].ID < sorted[b].ID })
	if s.N <= 1 {
		return sorted
	}
	var out []*registry.Manifest
	for k, m := range sorted {
		if k%s.N == s.I-1 {
			out = append(out, m)
		}
	}
	return out
}

// ShardRecord is what a shard's output says of its place in the run:
// the I-th of N, and which agents were split (Registry fingerprints their
// ids and versions, and the distribution asked for), so that a merge can
// tell a missing or repeated shard, or one of another registry, from a
// complete run. An output written without --shard has none.
type ShardRecord struct {
	I        int    `json:"i"`
	N        int    `json:"n"`
	Registry string `json:"registry"`
	Agents   int    `json:"agents"`
}

// Record is the shard's record for a split of agents (all of them, before
// the split); kind is the distribution a run was limited to, "" for all.
func (s Shard) Record(agents []*registry.Manifest, kind string) *ShardRecord {
	lines := make([]string, len(agents))
	for k, m := range agents {
		lines[k] = m.ID + " " + m.Version
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l + "\n"))
	}
	h.Write([]byte("type=" + kind))
	return &ShardRecord{I: s.I, N: s.N, Registry: hex.EncodeToString(h.Sum(nil))[:16], Agents: len(agents)}
}

// MergeOptions say what a merge checks the shards against.
type MergeOptions struct {
	// Known reports whether id is an agent of the registry being merged
	// for; a result of another agent is refused. Nil: not checked.
	Known func(id string) bool
}

// checkShards refuses a set of shard records that is not one whole run:
// a file without a record (not written with --shard), shards of two
// splits or registries, a shard given twice or one missing. names name
// the shards in messages.
func checkShards(recs []*ShardRecord, names []string) error {
	var first *ShardRecord
	have := map[int]string{}
	for k, r := range recs {
		switch {
		case r == nil:
			return fmt.Errorf("%w: %s was not written with --shard I/N, so it cannot say which part of the run it is: pass the outputs of the shard runs", ErrShard, names[k])
		case r.N < 1 || r.I < 1 || r.I > r.N:
			return fmt.Errorf("%w: %s says it is shard %d/%d, which is none", ErrShard, names[k], r.I, r.N)
		case first == nil:
			first = r
		case r.N != first.N:
			return fmt.Errorf("%w: %s is shard %d/%d, %s shard %d/%d: pass the shards of one run, all split the same way", ErrShard, names[k], r.I, r.N, names[0], first.I, first.N)
		case r.Registry != first.Registry || r.Agents != first.Agents:
			return fmt.Errorf("%w: %s is a shard of another registry (or another state of it: %d agents, fingerprint %s) than %s (%d agents, %s): pass the shards of one run", ErrShard, names[k], r.Agents, r.Registry, names[0], first.Agents, first.Registry)
		}
		if other, ok := have[r.I]; ok {
			return fmt.Errorf("%w: shard %d/%d is given twice (%s and %s): pass each shard once", ErrShard, r.I, r.N, other, names[k])
		}
		have[r.I] = names[k]
	}
	if first == nil {
		return fmt.Errorf("%w: no shard to merge", ErrShard)
	}
	var missing []string
	for i := 1; i <= first.N; i++ {
		if _, ok := have[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.N))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: shard %s is missing: a merge of part of a run would report only part of the agents; pass the output of every shard", ErrShard, strings.Join(missing, ", "))
	}
	return nil
}

// checkKnown refuses an agent the registry does not have.
func checkKnown(o MergeOptions, id, name string) error {
	if o.Known != nil && !o.Known(id) {
		return fmt.Errorf("%w: %s holds agent %q, which the registry does not have: merge with the registry the shards ran on", ErrShard, name, id)
	}
	return nil
}

// MergeReports joins the verify reports of shards (names name them in
// messages) into the report one run over all their agents gives: results
// sorted by id then distribution, the summaries added up. The shards must
// be every shard of one run (checkShards); an agent's result in two shards
// is refused (it would be counted twice), and so is an agent o.Known does
// not know.
func MergeReports(shards []*Report, names []string, o MergeOptions) (*Report, error) {
	recs := make([]*ShardRecord, len(shards))
	for k, r := range shards {
		recs[k] = r.Shard
	}
	if err := checkShards(recs, names); err != nil {
		return nil, err
	}
	out := &Report{Results: []*Result{}}
	seen := map[string]bool{}
	for k, r := range shards {
		for _, x := range r.Results {
			key := x.ID + " " + string(x.Distribution)
			if seen[key] {
				return nil, fmt.Errorf("%w: agent %q (%s) is in two shards: pass each shard once", ErrShard, x.ID, x.Distribution)
			}
			seen[key] = true
			if err := checkKnown(o, x.ID, names[k]); err != nil {
				return nil, err
			}
		}
		out.Results = append(out.Results, r.Results...)
		out.Summary.Pass += r.Summary.Pass
		out.Summary.Fail += r.Summary.Fail
		out.Summary.Skip += r.Summary.Skip
		out.Summary.Quarantined += r.Summary.Quarantined
	}
	sortResults(out.Results)
	return out, nil
}

func sortResults(results []*Result) {
	sort.SliceStable(results, func(a, b int) bool {
		if results[a].ID != results[b].ID {
			return results[a].ID < results[b].ID
		}
		return results[a].Distribution < results[b].Distribution
	})
}

// ReadReport reads a shard's verify --json output.
func ReadReport(path string) (*Report, error) {
	// Files named on the command line: a pipe would block, a device
	// never end.
	data, err := registry.ReadRegular(path, registry.MaxIndexSize)
	if err != nil {
		return nil, fmt.Errorf("read the shard report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil || r.Results == nil {
		return nil, fmt.Errorf("%w: %s is not the output of verify --json", ErrShard, path)
	}
	// Its strings are printed as a run prints its own: only what verify
	// writes is taken.
	for k, x := range r.Results {
		if x == nil || !registry.ValidID(x.ID) || !slices.Contains(registry.Kinds, x.Distribution) ||
			(x.Status != probe.StatusPass && x.Status != probe.StatusFail && x.Status != probe.StatusSkip) {
			return nil, fmt.Errorf("%w: %s: result %d is not one verify writes (an agent id, a distribution binary, npx or uvx, a status pass, fail or skip): pass the output of verify --json", ErrShard, path, k+1)
		}
	}
	// The merged exit status follows the summaries: one that does not
	// count its own results (an edited or spliced file) could hide a
	// failure.
	if s := countStatuses(r.Results, r.Summary.Quarantined); s != r.Summary || s.Quarantined > s.Skip {
		return nil, fmt.Errorf("%w: %s: its summary (%d passed, %d failed, %d skipped, %d quarantined) does not count its results (%d, %d, %d): pass the output of verify --json unedited",
			ErrShard, path, r.Summary.Pass, r.Summary.Fail, r.Summary.Skip, r.Summary.Quarantined, s.Pass, s.Fail, s.Skip)
	}
	return &r, nil
}

// MergeMatrices joins the snapshots of shards of one run into the
// snapshot one run over all their agents writes: rows sorted by id, the
// summary counted again. The shards must agree on what the run was (date,
// table mode, whether rows were reused); the snapshot is stamped with the
// latest shard's time.
func MergeMatrices(shards []*Matrix, names []string, o MergeOptions) (*Matrix, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("%w: no shard snapshot to merge", ErrShard)
	}
	recs := make([]*ShardRecord, len(shards))
	for k, s := range shards {
		recs[k] = s.Shard
	}
	if err := checkShards(recs, names); err != nil {
		return nil, err
	}
	first := shards[0]
	out := &Matrix{ProbeSchemaVersion: first.ProbeSchemaVersion, Date: first.Date, GeneratedAt: first.GeneratedAt,
		TableMode: first.TableMode, ChangedOnly: first.ChangedOnly, Agents: []MatrixRow{}}
	seen := map[string]bool{}
	for k, s := range shards {
		if s.ProbeSchemaVersion != ProbeSchemaVersion || s.Date != first.Date || s.TableMode != first.TableMode || s.ChangedOnly != first.ChangedOnly {
			return nil, fmt.Errorf("%w: shard %d is of another run (probe schema %d, date %s, table mode %s, changed only %v; the first: %d, %s, %s, %v): pass the shards of one run, each run with the same --date",
				ErrShard, k+1, s.ProbeSchemaVersion, s.Date, s.TableMode, s.ChangedOnly, first.ProbeSchemaVersion, first.Date, first.TableMode, first.ChangedOnly)
		}
		if s.GeneratedAt > out.GeneratedAt {
			out.GeneratedAt = s.GeneratedAt
		}
		for n, r := range s.Agents {
			if !registry.ValidID(r.ID) || !r.whole() {
				return nil, fmt.Errorf("%w: shard %d: row %d is not one the matrix writes (an agent id, a status for every probe): pass the latest.json of matrix --shard I/N unedited", ErrShard, k+1, n+1)
			}
			if seen[r.ID] {
				return nil, fmt.Errorf("%w: agent %q is in two shards: pass each shard once", ErrShard, r.ID)
			}
			if err := checkKnown(o, r.ID, names[k]); err != nil {
				return nil, err
			}
			seen[r.ID] = true
			out.Agents = append(out.Agents, r)
		}
	}
	sort.SliceStable(out.Agents, func(a, b int) bool { return out.Agents[a].ID < out.Agents[b].ID })
	out.Summary = summarize(out.Agents)
	return out, nil
}

// countStatuses is the summary of results; quarantined (which the JSON
// does not mark on results) is taken as given.
func countStatuses(results []*Result, quarantined int) Summary {
	s := Summary{Quarantined: quarantined}
	for _, r := range results {
		switch r.Status {
		case probe.StatusPass:
			s.Pass++
		case probe.StatusFail:
			s.Fail++
		default:
			s.Skip++
		}
	}
	return s
}
