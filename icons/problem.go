package icons

// Problem is one finding in an icon. Line and Column are 1-based (Column
// counts characters, not bytes); both are 0 when the problem concerns the
// whole file.
type Problem struct {
	Rule     string
	Severity string // "error" or "warning"
	Line     int
	Column   int
	Message  string
}

// Rule ids, stable: they appear in reports and CI annotations.
// (icon-missing belongs to the validate package: it needs the folder.)
const (
	RuleXML         = "icon-xml"
	RuleComment     = "icon-comment"
	RuleSizeMissing = "icon-size-missing"
	RuleNotSquare   = "icon-not-square"
	// RuleViewBoxNotSquare is a warning: the icon is square but its
	// drawing is letterboxed in it (preserveAspectRatio defaults to
	// xMidYMid meet), and the public registry ships such icons.
	RuleViewBoxNotSquare = "icon-viewbox-not-square"
	RuleSize             = "icon-size"
	RuleHardcodedColor   = "icon-hardcoded-color"
	RuleNoCurrentColor   = "icon-no-currentcolor"
	RuleUnsafe           = "icon-unsafe"
	RuleTooLarge         = "icon-too-large"
)

// Severities.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// MaxSize is the largest icon accepted, in bytes. Real icons are far
// smaller (the largest in the public registry is ~29 KiB).
const MaxSize = 64 << 10

// Size is the width and height every icon must have.
const Size = 16
