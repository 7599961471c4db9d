package svgsafe

// Problem is one finding in an icon. Line and Column are 1-based (Column
// counts characters, not bytes); both are 0 when the problem concerns the
// whole file. Package icons names the same fields in its own Problem.
type Problem struct {
	Rule     string
	Severity string // "error" or "warning"
	Line     int
	Column   int
	Message  string
}

// The rules this package reports, stable: they appear in reports and CI
// annotations (as the registry's rules of the same ids).
const (
	RuleXML      = "icon-xml"
	RuleUnsafe   = "icon-unsafe"
	RuleTooLarge = "icon-too-large"
)

// Reports says whether rule is one of this package's: a refusal under any
// other rule was made by a check that asked for more than safety.
func Reports(rule string) bool {
	return rule == RuleXML || rule == RuleUnsafe || rule == RuleTooLarge
}

// Severities.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// MaxSize is the largest icon read, in bytes. Real icons are far smaller
// (the largest in the public registry is ~29 KiB).
const MaxSize = 64 << 10
