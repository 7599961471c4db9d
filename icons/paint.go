package icons

import (
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/svgsafe"
)

// Paint judges one colour value: currentColor (or none) follows the
// editor's theme, anything else is hard-coded.
func (c *checker) Paint(prop, value string, off int, sp svgsafe.Spelling) {
	v := strings.TrimSpace(value)
	lv := c.Lower(v)
	if i := strings.Index(lv, "!important"); i >= 0 {
		v = strings.TrimSpace(v[:i])
		lv = c.Lower(v)
	}
	switch lv {
	case "currentcolor":
		c.usesCurrentColor = true
		return
	case "none", "inherit":
		return
	}
	written := svgsafe.Printable(prop) + "=" + svgsafe.Quote(value)
	if sp == svgsafe.AsDeclaration {
		written = svgsafe.Printable(prop) + ": " + svgsafe.Printable(strings.TrimSpace(value))
	}
	if strings.HasPrefix(lv, "url(") {
		c.Add(RuleHardcodedColor, off, "%s paints with a gradient, pattern or other reference, which cannot follow the editor's theme; use currentColor (or none)", written)
		return
	}
	c.Add(RuleHardcodedColor, off, "%s is a hard-coded colour; use currentColor (or none) so the icon follows the editor's theme", written)
}
