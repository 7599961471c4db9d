package validate

import (
	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Severity of a problem.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Problem is one finding, positioned in the file it concerns. Line and
// Column are 1-based; Column is 0 when only the line is known; both are 0
// when the problem is about the whole file.
type Problem struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Pointer  string   `json:"pointer"`
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// AgentResult is the verdict on one agent folder.
type AgentResult struct {
	ID       string    `json:"id"`
	Path     string    `json:"path"`
	Valid    bool      `json:"valid"`
	Problems []Problem `json:"problems"`

	// ManifestFile is the agent.json path as reported in problems.
	ManifestFile string `json:"-"`
	// Manifest is the decoded manifest when the file parsed (even if it has
	// problems); nil otherwise.
	Manifest *registry.Manifest `json:"-"`
	// Icon is the icon.svg content when it was read.
	Icon []byte `json:"-"`

	// index positions pointers of agent.json, for problems added after the
	// offline checks (network) that carry only a pointer.
	index *jsonpos.Index
	// declaredID: the manifest has a non-empty string id (ID is it).
	declaredID bool
	// idLine, idCol place "id" once a lean run dropped index.
	idLine, idCol int
}

// FileResult is the verdict on a registry file that is not an agent:
// variants.json. It is reported beside the agents, not among them.
type FileResult struct {
	File     string    `json:"file"`
	Valid    bool      `json:"valid"`
	Problems []Problem `json:"problems"`
}

// Summary counts a report: Agents and Invalid count agents only; Errors
// and Warnings count every problem, the files' too.
type Summary struct {
	Agents   int `json:"agents"`
	Invalid  int `json:"invalid"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`

	// For the summary line: agents with an error, and agents with
	// warnings and no error (under --strict these are Invalid too).
	WithErrors       int `json:"-"`
	WithOnlyWarnings int `json:"-"`
}

// Report is the result of a validation run, agents sorted by id, then
// the registry files that are not agents (variants.json).
type Report struct {
	Agents  []*AgentResult `json:"agents"`
	Files   []*FileResult  `json:"files"`
	Summary Summary        `json:"summary"`
	// Schemas say which agent and registry schema judged the manifests.
	Schemas SchemaSources `json:"schemas"`

	// Strict makes warnings count as errors (validate --strict).
	Strict bool `json:"-"`
}

// Each calls fn with every agent of the report in order (sorted by id).
// The result passed to fn is only valid during the call.
func (r *Report) Each(fn func(*AgentResult) error) error {
	for _, a := range r.Agents {
		if err := fn(a); err != nil {
			return err
		}
	}
	return nil
}

// HasErrors reports whether the report fails the run: error-level problems,
// or any problem at all under --strict.
func (r *Report) HasErrors() bool {
	return r.Summary.Errors > 0 || (r.Strict && r.Summary.Warnings > 0)
}

// AddFile adds a file's verdict to a finished report and counts its
// problems (build's own check of variants.json).
func (r *Report) AddFile(f *FileResult) {
	countFile(r, f)
	r.Files = append(r.Files, f)
}

func countFile(r *Report, f *FileResult) {
	if f.Problems == nil {
		f.Problems = []Problem{}
	}
	sortProblems(f.Problems)
	for _, p := range f.Problems {
		if p.Severity == SeverityError {
			r.Summary.Errors++
		} else {
			r.Summary.Warnings++
		}
	}
	f.Valid = !hasSeverity(f.Problems, SeverityError) && (!r.Strict || len(f.Problems) == 0)
}
