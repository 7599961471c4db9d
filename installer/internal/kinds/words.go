package kinds

// Estimate says whether a NoSpace's size is the whole need or a floor.
type Estimate int

const (
	Exactly Estimate = iota // the size the file will have
	AtLeast                 // what was written so far: the whole is more
)

// NoSpace is the full-disk error: never retried, never "corrupt".
func NoSpace(what, dir string, need int64, est Estimate) error {
	more := ""
	if est == AtLeast {
		more = "at least "
	}
	mb := (need + 999_999) / 1_000_000
	return Errorf(ErrNoSpace, "%s: no space left on %s (needs %s%d MB): free some space and try again", what, dir, more, mb)
}

// ValidSHA256 reports whether s is a sha256 as manifests write it: 64 hex
// digits (either case).
func ValidSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// HasDriveLetter reports a Windows path that starts with a drive (C:).
func HasDriveLetter(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))
}
