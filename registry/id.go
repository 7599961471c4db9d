package registry

import (
	"strings"
	"unicode"
)

// ValidID reports whether id matches ^[a-z][a-z0-9-]*$. Written out rather
// than a regexp: every acp command pays for package init, and this is the
// check every index load makes.
func ValidID(id string) bool {
	if id == "" || id[0] < 'a' || id[0] > 'z' {
		return false
	}
	for i := 1; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Slug writes a display name in lowercase with hyphens ("Claude Agent" ->
// "claude-agent"), the form `acp` accepts in place of an id.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// WindowsDeviceName reports whether base (a file name without its
// extension, any case) is a name Windows opens as a device rather than a
// file: CON, NUL, COM1, LPT¹ and the rest. An agent's id names folders and
// files, so it cannot be one.
func WindowsDeviceName(base string) bool {
	b := strings.ToUpper(base)
	switch b {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$":
		return true
	}
	if len(b) >= 4 && (strings.HasPrefix(b, "COM") || strings.HasPrefix(b, "LPT")) {
		switch b[3:] {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return true
		}
	}
	return false
}
