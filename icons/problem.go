package icons

import "github.com/agentclientprotocol/acp-registry-go/internal/svgsafe"

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
	// The safety rules: what acp's icon cache refuses too.
	RuleXML      = svgsafe.RuleXML
	RuleUnsafe   = svgsafe.RuleUnsafe
	RuleTooLarge = svgsafe.RuleTooLarge

	// The style rules: a registry's icons look alike and follow the
	// editor's theme.
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
)

// Severities.
const (
	SeverityError   = svgsafe.SeverityError
	SeverityWarning = svgsafe.SeverityWarning
)

// MaxSize is the largest icon accepted, in bytes. Real icons are far
// smaller (the largest in the public registry is ~29 KiB).
const MaxSize = svgsafe.MaxSize

// Size is the width and height every icon must have.
const Size = 16
