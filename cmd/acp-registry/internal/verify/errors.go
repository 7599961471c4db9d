package verify

// SkipError says a distribution cannot run on this machine (no build for
// the platform, a runner such as uv missing). An InstallFunc returns it to
// make the result "skip" instead of "fail".
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return e.Reason }

// Skip builds a SkipError.
func Skip(reason string) error { return &SkipError{Reason: reason} }
