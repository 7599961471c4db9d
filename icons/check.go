package icons

import (
	"bytes"
	"encoding/xml"
	"sync"

	"github.com/agentclientprotocol/acp-registry-go/internal/svgsafe"
)

// Check reports every problem of an icon, sorted by position: what the
// safety walk (internal/svgsafe, which acp's icon cache uses alone) finds,
// and the registry's style rules on top. It never panics: a bug in the
// checker becomes an icon-xml problem instead of taking the validator down
// with it. It reads data in place, so data must not change while Check
// runs, and keeps nothing of it once it returns. Check may be called from
// several goroutines at once.
func Check(data []byte) (problems []Problem) {
	defer func() {
		if r := recover(); r != nil {
			problems = []Problem{Problem(svgsafe.Internal(r))}
		}
	}()
	return check(data)
}

// check is Check without the safety net, so that fuzzing sees panics.
func check(data []byte) []Problem {
	c := checkers.Get().(*checker)
	c.usesCurrentColor, c.rootOff = false, 0
	switch c.Walk(data, c) {
	case svgsafe.TooLarge:
		// Its one problem: nothing of it was read.
	case svgsafe.Read:
		// A hard-coded colour already says to use currentColor: one
		// mistake, one error (issue 22).
		if !c.usesCurrentColor && !c.Has(RuleHardcodedColor) {
			c.Add(RuleNoCurrentColor, c.rootOff, "the icon never uses currentColor, so it cannot follow the editor's theme; paint its shapes with fill=\"currentColor\" or stroke=\"currentColor\"")
		}
		fallthrough
	default:
		c.comments()
	}
	problems := convert(c.Finish())
	// Only a checker that finished goes back: after a panic its state
	// is anyone's guess.
	checkers.Put(c)
	return problems
}

// convert names the walk's problems in this package's type.
func convert(ps []svgsafe.Problem) []Problem {
	if len(ps) == 0 {
		return nil
	}
	out := make([]Problem, len(ps))
	for i, p := range ps {
		out[i] = Problem(p)
	}
	return out
}

// checkers keep their buffers from icon to icon: a validation run checks
// thousands, and most of a fresh checker's cost was growing them.
var checkers = sync.Pool{New: func() any {
	return new(checker)
}}

// checker is the safety walk with the registry's style rules: it is the
// walk's Rules.
type checker struct {
	svgsafe.Walker
	usesCurrentColor bool
	rootOff          int
}

// Root applies the size rules to an <svg> root.
func (c *checker) Root(t xml.StartElement, raw []svgsafe.RawAttr, off int) {
	c.rootOff = off
	if t.Name.Local == "svg" {
		c.size(t, raw, off)
	}
}

// comments reports every "<!--" in the raw bytes, wherever it is (even
// inside CDATA): MDX chokes on the sequence itself, not on XML comments.
func (c *checker) comments() {
	data := c.Data()
	for off := 0; ; {
		i := bytes.Index(data[off:], []byte("<!--"))
		if i < 0 {
			return
		}
		c.Add(RuleComment, off+i, "the icon contains an XML comment (<!--), which breaks embedding icons in MDX documentation; delete the comment")
		off += i + 4
	}
}
