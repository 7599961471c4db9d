package launch

import "strings"

// Quote joins a command line for display, single-quoting words a POSIX
// shell would split or expand.
func Quote(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quoteWord(w)
	}
	return strings.Join(q, " ")
}

func quoteWord(w string) string {
	if w == "" {
		return "''"
	}
	safe := true
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
