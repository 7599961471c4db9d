package validate

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
)

// Lean runs (validate --skip-urls) keep nothing of an agent once it is
// checked: its problems are encoded into a temporary file as soon as they
// are known, and the report keeps one small record per agent (its id,
// folder and where its problems are), which it sorts at the end and reads
// back in order while printing. So memory does not grow with manifests or
// icons, and the report stays sorted by id as the contract says.

// rec is what a lean report keeps of one agent.
type rec struct {
	unit int32  // index in spill.units
	id   string // "" when it is the folder's name (the usual case)
	off  int64  // where its encoded problems start in the spill file
	n    int32  // their length
	errs int32
	warn int32
	// idLine/idCol place the manifest's "id" (for id-duplicate); idLine is
	// 0 when the manifest declared no id, and then it takes part in no
	// duplicate.
	idLine, idCol int32
	dups          *[]Problem // id-duplicate problems, rare
}

type spill struct {
	f     *os.File
	w     *bufio.Writer // batches the small writes of every agent
	mu    sync.Mutex
	off   int64
	recs  []rec
	units []unit
}

func (sp *spill) id(r *rec) string {
	if r.id != "" {
		return r.id
	}
	return sp.units[r.unit].name
}

func (sp *spill) path(r *rec) string { return sp.units[r.unit].show() }

// runLean is Run for callers that only print the report (Options.Lean).
func runLean(ctx context.Context, paths []string, units []unit, opts Options) (*Report, error) {
	f, err := os.CreateTemp("", "acp-validate-*")
	if err != nil {
		return nil, fmt.Errorf("create a temporary file for the report: %w", err)
	}
	// Unlinked at once where the OS allows it, so nothing is left behind
	// even when the process is killed; elsewhere Close removes it.
	removed := os.Remove(f.Name()) == nil
	sp := &spill{f: f, w: bufio.NewWriterSize(f, 64<<10), recs: make([]rec, len(units)), units: units}
	rep := &Report{Strict: opts.Strict, Files: []*FileResult{}, Schemas: builtInSchemas, spill: sp, spillName: f.Name(), spillRemoved: removed}
	var werr error
	var werrOnce sync.Once
	bufs := sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}
	// Nothing keeps an agent's file bytes once its problems are encoded,
	// unless OnAgent does.
	err = forEach(ctx, units, opts.OnAgent == nil, func(i int, r *AgentResult) {
		if opts.OnAgent != nil {
			opts.OnAgent(r)
		}
		sortProblems(r.Problems)
		bp := bufs.Get().(*[]byte)
		b := appendProblems((*bp)[:0], r.Problems)
		rc := rec{unit: int32(i), n: int32(len(b))}
		if r.ID != units[i].name {
			rc.id = r.ID
		}
		for _, p := range r.Problems {
			if p.Severity == SeverityError {
				rc.errs++
			} else {
				rc.warn++
			}
		}
		if r.declaredID {
			l, c := r.index.At("/id", false)
			rc.idLine, rc.idCol = int32(max(l, 1)), int32(c)
		}
		sp.mu.Lock()
		rc.off = sp.off
		_, err := sp.w.Write(b)
		sp.off += int64(len(b))
		sp.recs[i] = rc
		sp.mu.Unlock()
		*bp = b
		bufs.Put(bp)
		if err != nil {
			werrOnce.Do(func() { werr = err })
		}
	})
	if ferr := sp.w.Flush(); werr == nil {
		werr = ferr
	}
	if err == nil && werr != nil {
		err = fmt.Errorf("write the report's temporary file: %w", werr)
	}
	if err != nil {
		rep.Close()
		return nil, err
	}
	recs := sp.recs
	sort.Slice(recs, func(i, j int) bool {
		a, b := &recs[i], &recs[j]
		if ai, bi := sp.id(a), sp.id(b); ai != bi {
			return ai < bi
		}
		return sp.path(a) < sp.path(b)
	})
	sp.duplicates()
	if len(opts.Agents) > 0 {
		if recs, err = sp.selectRecs(opts.Agents, paths); err != nil {
			rep.Close()
			return nil, err
		}
	}
	sp.recs = recs
	rep.Summary = countRecs(recs, opts.Strict)
	return rep, nil
}

// countRecs is a lean report's summary.
func countRecs(recs []rec, strict bool) Summary {
	var sum Summary
	for i := range recs {
		r := &recs[i]
		errs, warn := int(r.errs), int(r.warn)
		if r.dups != nil {
			errs += len(*r.dups)
		}
		sum.Errors += errs
		sum.Warnings += warn
		if errs > 0 || (strict && warn > 0) {
			sum.Invalid++
		}
		switch {
		case errs > 0:
			sum.WithErrors++
		case warn > 0:
			sum.WithOnlyWarnings++
		}
	}
	sum.Agents = len(recs)
	return sum
}

// duplicates is checkDuplicates over records sorted by id.
func (sp *spill) duplicates() {
	recs := sp.recs
	for i := 0; i < len(recs); {
		j := i
		id := sp.id(&recs[i])
		var group []int
		for ; j < len(recs) && sp.id(&recs[j]) == id; j++ {
			if recs[j].idLine > 0 {
				group = append(group, j)
			}
		}
		if len(group) > 1 {
			for _, k := range group {
				var others []string
				for _, o := range group {
					if o != k {
						others = append(others, showJoin(sp.path(&recs[o]), "agent.json"))
					}
				}
				sort.Strings(others)
				ps := []Problem{{File: showJoin(sp.path(&recs[k]), "agent.json"), Line: int(recs[k].idLine), Column: int(recs[k].idCol),
					Pointer: "/id", Rule: RuleIDDuplicate, Severity: SeverityError,
					Message: fmt.Sprintf("id %q is also used by %s: ids must be unique; rename one", id, strings.Join(others, ", "))}}
				recs[k].dups = &ps
			}
		}
		i = j
	}
}

// selectRecs is selectAgents over records.
func (sp *spill) selectRecs(want []string, paths []string) ([]rec, error) {
	recs := sp.recs
	keep, err := pickAgents(len(recs), func(i int) (string, string) { return sp.id(&recs[i]), sp.path(&recs[i]) }, want, paths)
	if err != nil {
		return nil, err
	}
	out := make([]rec, len(keep))
	for k, i := range keep {
		out[k] = recs[i]
	}
	return out, nil
}

// each reads the records back in order as results.
func (sp *spill) each(strict bool, fn func(*AgentResult) error) error {
	// Records sorted by id are mostly in the order they were written (a
	// registry's folders are its ids), so a window read ahead serves most.
	win := make([]byte, 0, 64<<10)
	var winOff int64
	var ps []Problem
	for i := range sp.recs {
		r := &sp.recs[i]
		if r.off < winOff || r.off+int64(r.n) > winOff+int64(len(win)) {
			size := max(int(r.n), 64<<10)
			if cap(win) < size {
				win = make([]byte, 0, size)
			}
			n, err := sp.f.ReadAt(win[:size], r.off)
			if n < int(r.n) {
				if err == nil || errors.Is(err, io.EOF) {
					err = errCorruptSpill
				}
				return fmt.Errorf("read back the report's temporary file: %w", err)
			}
			win, winOff = win[:n], r.off
		}
		buf := win[r.off-winOff : r.off-winOff+int64(r.n)]
		var err error
		if ps, err = decodeProblems(buf, ps[:0]); err != nil {
			return err
		}
		if r.dups != nil {
			ps = append(ps, *r.dups...)
			sortProblems(ps)
		}
		errs := r.errs
		if r.dups != nil {
			errs += int32(len(*r.dups))
		}
		a := &AgentResult{ID: sp.id(r), Path: sp.path(r), Problems: ps,
			Valid: errs == 0 && (!strict || r.warn == 0)}
		if a.Problems == nil {
			a.Problems = []Problem{}
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendProblems encodes problems compactly; decodeProblems reverses it.
func appendProblems(b []byte, ps []Problem) []byte {
	for _, p := range ps {
		b = appendString(b, p.File)
		b = binary.AppendUvarint(b, uint64(p.Line))
		b = binary.AppendUvarint(b, uint64(p.Column))
		b = appendString(b, p.Pointer)
		b = appendString(b, p.Rule)
		b = appendString(b, string(p.Severity))
		b = appendString(b, p.Message)
	}
	return b
}

var errCorruptSpill = errors.New("the report's temporary file was changed while validate ran")

func decodeProblems(b []byte, ps []Problem) ([]Problem, error) {
	str := func() (string, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return "", false
		}
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s, true
	}
	num := func() (int, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, false
		}
		b = b[k:]
		return int(n), true
	}
	for len(b) > 0 {
		var p Problem
		var sev string
		ok := true
		var o bool
		p.File, o = str()
		ok = ok && o
		p.Line, o = num()
		ok = ok && o
		p.Column, o = num()
		ok = ok && o
		p.Pointer, o = str()
		ok = ok && o
		p.Rule, o = str()
		ok = ok && o
		sev, o = str()
		ok = ok && o
		p.Message, o = str()
		if !ok || !o {
			return nil, errCorruptSpill
		}
		p.Severity = Severity(sev)
		ps = append(ps, p)
	}
	return ps, nil
}
