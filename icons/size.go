package icons

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/svgsafe"
)

// parseLength reads a width or height. px is the unit SVG assumes anyway;
// % and physical units depend on the page, so they are unusable here.
func parseLength(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && strings.EqualFold(s[len(s)-2:], "px") {
		s = strings.TrimSpace(s[:len(s)-2])
	}
	f, ok := svgsafe.ParseNumber(s)
	return f, ok && f > 0
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// size applies the size rules to the root element.
func (c *checker) size(t xml.StartElement, raw []svgsafe.RawAttr, off int) {
	// Values, not pointers to matchAttr's results: those would escape,
	// one allocation per attribute of every icon's root.
	var width, viewBox svgsafe.RawAttr
	var hasWidth, hasHeight, hasViewBox bool
	var wv, hv, vbv string
	for i, a := range t.Attr {
		if a.Name.Space != "" {
			continue
		}
		switch a.Name.Local {
		case "width":
			width, hasWidth, wv = svgsafe.MatchAttr(raw, i, a, off), true, a.Value
		case "height":
			hasHeight, hv = true, a.Value
		case "viewBox":
			viewBox, hasViewBox, vbv = svgsafe.MatchAttr(raw, i, a, off), true, a.Value
		}
	}
	w, wok := 0.0, false
	h, hok := 0.0, false
	if hasWidth {
		w, wok = parseLength(wv)
	}
	if hasHeight {
		h, hok = parseLength(hv)
	}
	vw, vh, vok := 0.0, 0.0, false
	if hasViewBox {
		vw, vh, vok = svgsafe.ParseViewBox(vbv)
	}
	const fix = `set width="16" height="16" viewBox="0 0 16 16" on <svg>`
	// The size that decides is width/height when both are usable, else
	// the viewBox. Not square and not 16×16 are separate rules, so a
	// 16×32 icon breaks both.
	switch {
	case wok && hok:
		if w != h {
			c.Add(RuleNotSquare, width.NameOff, "the icon is %s×%s, not square; %s", fmtNum(w), fmtNum(h), fix)
		}
		if w != Size || h != Size {
			c.Add(RuleSize, width.NameOff, "the icon is %s×%s; icons must be 16×16: %s", fmtNum(w), fmtNum(h), fix)
		}
		// preserveAspectRatio defaults to xMidYMid meet: the drawing is
		// letterboxed, not distorted, and the public registry ships such
		// icons, hence a warning. With a size not square, one not-square
		// problem says enough.
		if vok && vw != vh && w == h {
			c.Warn(RuleViewBoxNotSquare, viewBox.NameOff, "the viewBox %s is %s×%s, not square, so the drawing is letterboxed (shrunk, with empty bands) in the square icon; redraw it on a square canvas (viewBox=\"0 0 16 16\")", svgsafe.Quote(vbv), fmtNum(vw), fmtNum(vh))
		}
	case vok:
		if vw != vh {
			c.Add(RuleNotSquare, viewBox.NameOff, "the viewBox %s is %s×%s, not square; redraw it on a square canvas and %s", svgsafe.Quote(vbv), fmtNum(vw), fmtNum(vh), fix)
		}
		if vw != Size || vh != Size {
			c.Add(RuleSize, viewBox.NameOff, "the icon's size comes from its viewBox, %s×%s; icons must be 16×16: %s", fmtNum(vw), fmtNum(vh), fix)
		}
	default:
		var why []string
		for _, x := range []struct {
			name string
			has  bool
			v    string
			ok   bool
		}{{"width", hasWidth, wv, wok}, {"height", hasHeight, hv, hok}} {
			if x.has && !x.ok {
				why = append(why, x.name+"="+svgsafe.Quote(x.v)+" is not a size in pixels")
			}
		}
		if hasViewBox {
			why = append(why, "viewBox="+svgsafe.Quote(vbv)+" is not four numbers with a positive width and height")
		}
		detail := "it has neither width/height nor a viewBox"
		if len(why) > 0 {
			detail = strings.Join(why, ", ")
		}
		c.Add(RuleSizeMissing, off, "the icon's size is unknown: %s; %s", detail, fix)
	}
}
