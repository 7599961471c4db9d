package icons

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"
)

var knownRules = []string{RuleXML, RuleComment, RuleSizeMissing, RuleNotSquare, RuleViewBoxNotSquare, RuleSize, RuleHardcodedColor, RuleNoCurrentColor, RuleUnsafe, RuleTooLarge}

// FuzzCheck: whatever the bytes, check (without Check's recover) must not
// panic, and its answer must be well-formed: known rules, positions inside
// the file, sorted, printable messages, the same answer twice, and the
// safety walk alone (acp's icon cache) finding exactly Check's safety
// problems.
func FuzzCheck(f *testing.F) {
	addCorpusSeeds(f)
	for _, tc := range checkCases {
		f.Add([]byte(tc.svg))
	}
	for _, s := range []string{icon(shape), billionLaughs, "<svg", "\xff", "<style><![CDATA[a{fill:red}]]></style>",
		icon(`<path style="fill:&#x72;ed;mask:url(x)" d="M0 0"/>`)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := check(data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for i, p := range got {
			if !slices.Contains(knownRules, p.Rule) {
				t.Fatalf("unknown rule %q", p.Rule)
			}
			if p.Severity != severityOf(p.Rule) || p.Message == "" {
				t.Fatalf("bad problem %+v", p)
			}
			whole := p.Line == 0 && p.Column == 0
			if !whole && (p.Line < 1 || p.Line > lines || p.Column < 1) {
				t.Fatalf("position %d:%d outside a %d-line file", p.Line, p.Column, lines)
			}
			if strings.IndexFunc(p.Message, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) >= 0 {
				t.Fatalf("unprintable message %q", p.Message)
			}
			if i > 0 {
				q := got[i-1]
				if q.Line > p.Line || (q.Line == p.Line && q.Column > p.Column) {
					t.Fatalf("not sorted: %+v before %+v", q, p)
				}
			}
		}
		if again := check(data); !slices.Equal(again, got) {
			t.Fatalf("two answers for one input")
		}
		sameSafety(t, "the input", data)
	})
}

func BenchmarkCheckCorpus(b *testing.B) {
	icons := corpusIcons(b)
	var all [][]byte
	size := 0
	for _, d := range icons {
		all = append(all, d)
		size += len(d)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range all {
			Check(d)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(all)), "ns/icon")
}

func BenchmarkCheckBillionLaughs(b *testing.B) {
	data := []byte(billionLaughs)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Check(data)
	}
}

func BenchmarkCheckMaxSize(b *testing.B) {
	// The worst legal input: 64 KiB of attributes the checker inspects.
	var buf strings.Builder
	buf.WriteString(open)
	for buf.Len() < MaxSize-200 {
		buf.WriteString(`<path fill="#123" style="stroke:red" d="M0 0"/>`)
	}
	buf.WriteString(`</svg>`)
	data := []byte(buf.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Check(data)
	}
}

func BenchmarkCheckUseChain(b *testing.B) {
	// The worst <use> graph that fits: a chain of groups, each drawing
	// the one before it, up to the size limit.
	var buf strings.Builder
	buf.WriteString(open + `<g id="g0">` + shape + `</g>`)
	for i := 1; buf.Len() < MaxSize-100; i++ {
		fmt.Fprintf(&buf, `<g id="g%d"><use href="#g%d"/></g>`, i, i-1)
	}
	buf.WriteString(`</svg>`)
	data := []byte(buf.String())
	if ps := Check(data); len(ps) != 1 || ps[0].Rule != RuleUnsafe {
		b.Fatalf("a chain of %d bytes: %+v, want one icon-unsafe", len(data), ps)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Check(data)
	}
}
