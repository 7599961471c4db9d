package verify

import (
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

// MergeReports joins the verify reports of shards into the report one
// run over all their agents gives: results sorted by id then
// distribution, the summaries added up. An agent's result in two shards
// (one file passed twice, shards of two splits) is refused: it would be
// counted twice.
func MergeReports(shards []*Report) (*Report, error) {
	out := &Report{Results: []*Result{}}
	seen := map[string]bool{}
	for _, r := range shards {
		for _, x := range r.Results {
			key := x.ID + " " + string(x.Distribution)
			if seen[key] {
				return nil, fmt.Errorf("%w: agent %q (%s) is in two shards: pass each shard once", ErrShard, x.ID, x.Distribution)
			}
			seen[key] = true
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
func MergeMatrices(shards []*Matrix) (*Matrix, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("%w: no shard snapshot to merge", ErrShard)
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
