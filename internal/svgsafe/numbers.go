package svgsafe

import "strconv"

// ParseNumber reads an SVG number: [+-]?(digits[.digits?]|.digits)
// with an optional exponent, so no Inf, NaN, hex or digit separators,
// which strconv.ParseFloat would otherwise accept. (It was a regular
// expression, numberPattern in the tests, and fuzzing holds it to that.)
func ParseNumber(s string) (float64, bool) {
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

// ParseViewBox reads "min-x min-y width height", separated by white space
// and/or commas, and returns width and height.
func ParseViewBox(s string) (w, h float64, ok bool) {
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
		if n[fields], ok = ParseNumber(s[i:j]); !ok {
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
