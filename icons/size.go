package icons

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/svgsafe"
)

// parseNumber reads an SVG number: [+-]?(digits[.digits?]|.digits)
// with an optional exponent, so no Inf, NaN, hex or digit separators,
// which strconv.ParseFloat would otherwise accept. (It was a regular
// expression, numberPattern in the tests, and fuzzing holds it to that.)
func parseNumber(s string) (float64, bool) {
	if !isNumber(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func isNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	intDigits := digits()
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 && intDigits == 0 {
			return false
		}
	} else if intDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// parseLength reads a width or height. px is the unit SVG assumes anyway;
// % and physical units depend on the page, so they are unusable here.
func parseLength(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && strings.EqualFold(s[len(s)-2:], "px") {
		s = strings.TrimSpace(s[:len(s)-2])
	}
	f, ok := parseNumber(s)
	return f, ok && f > 0
}

// parseViewBox reads "min-x min-y width height", separated by white space
// and/or commas, and returns width and height.
func parseViewBox(s string) (w, h float64, ok bool) {
	// The fields as strings.FieldsFunc would split them (the separators
	// are ASCII, so bytes and runes split alike), without its slice.
	var n [4]float64
	fields := 0
	for i := 0; i < len(s); {
		if viewBoxSeparator(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !viewBoxSeparator(s[j]) {
			j++
		}
		if fields == 4 {
			return 0, 0, false
		}
		if n[fields], ok = parseNumber(s[i:j]); !ok {
			return 0, 0, false
		}
		fields++
		i = j
	}
	if fields != 4 {
		return 0, 0, false
	}
	if n[2] <= 0 || n[3] <= 0 {
		return 0, 0, false
	}
	return n[2], n[3], true
}

func viewBoxSeparator(b byte) bool {
	return b == ',' || b == ' ' || b == '\t' || b == '\r' || b == '\n'
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
		vw, vh, vok = parseViewBox(vbv)
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
