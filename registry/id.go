package registry

import (
	"regexp"
	"strings"
	"unicode"
)

var idRe = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// ValidID reports whether id matches ^[a-z][a-z0-9-]*$.
func ValidID(id string) bool { return idRe.MatchString(id) }

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
