package svgsafe

import (
	"strings"
	"testing"
)

const open = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">`

// An editor shows any safe icon: the registry's style (16×16,
// currentColor, no comments) is not the walk's to judge.
func TestStyleIsNotSafety(t *testing.T) {
	for name, svg := range map[string]string{
		"brand colour":    `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><rect fill="#e8590c" width="48" height="48"/></svg>`,
		"comment":         open + `<!-- a comment --><path fill="currentColor" d="M0 0"/></svg>`,
		"no size":         `<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0h16v16H0z"/></svg>`,
		"own gradient":    open + `<defs><linearGradient id="g"><stop stop-color="red"/></linearGradient></defs><path fill="url(#g)" d="M0 0"/></svg>`,
		"styled":          open + `<style>path{fill:blue;stroke:rgb(1,2,3)}</style><path style="color:red" d="M0 0"/></svg>`,
		"animated colour": open + `<path d="M0 0"><set attributeName="fill" to="red"/></path></svg>`,
		"byte order mark": "\ufeff" + open + `<path d="M0 0"/></svg>`,
	} {
		if ps := Check([]byte(svg)); len(ps) != 0 {
			t.Errorf("%s: %+v, want no problem", name, ps)
		}
	}
}

func TestUnsafeOrUnreadableRefused(t *testing.T) {
	for name, c := range map[string]struct {
		svg, rule string
	}{
		"script":            {open + `<SCRIPT>alert(1)</SCRIPT></svg>`, RuleUnsafe},
		"event":             {open + `<path onclick="x()" d="M0 0"/></svg>`, RuleUnsafe},
		"external href":     {open + `<use href="https://evil.example/a.svg#x"/></svg>`, RuleUnsafe},
		"external paint":    {open + `<path fill="url(https://evil.example/p.svg#g)" d="M0 0"/></svg>`, RuleUnsafe},
		"css import":        {open + `<style>@import "https://evil.example/a.css";</style></svg>`, RuleUnsafe},
		"escaped css":       {open + `<style>path{mask:u\72l(x)}</style></svg>`, RuleUnsafe},
		"animated href":     {open + `<a><set attributeName="href" to="javascript:alert(1)"/></a></svg>`, RuleUnsafe},
		"entities":          {`<!DOCTYPE svg [<!ENTITY a "aaaa">]>` + open + `&a;</svg>`, RuleUnsafe},
		"not svg":           {`<html><body>not an icon</body></html>`, RuleXML},
		"no namespace":      {`<svg width="16" height="16"></svg>`, RuleXML},
		"cut short":         {open + `<path d="M0 0"`, RuleXML},
		"too large":         {open + strings.Repeat(" ", MaxSize) + `</svg>`, RuleTooLarge},
		"nested too deeply": {open + strings.Repeat("<g>", MaxDepth) + strings.Repeat("</g>", MaxDepth) + `</svg>`, RuleXML},
	} {
		ps := Check([]byte(c.svg))
		if len(ps) == 0 || ps[0].Rule != c.rule || ps[0].Severity != SeverityError {
			t.Errorf("%s: %+v, want an error of %s first", name, ps, c.rule)
		}
	}
}
