package validate

// Rule ids of the offline checks, exactly as registry-rules.md lists them.
// They are part of the output contract: CI configurations and editors match
// on them. Network rule ids live with the network checks.
const (
	RuleManifestMissing     = "manifest-missing"
	RuleJSONSyntax          = "json-syntax"
	RuleSchema              = "schema"
	RuleUnknownField        = "unknown-field"
	RuleIDFormat            = "id-format"
	RuleIDDirMismatch       = "id-dir-mismatch"
	RuleIDDuplicate         = "id-duplicate"
	RuleVersionSemver       = "version-semver"
	RuleVersionLeadingZero  = "version-leading-zero"
	RuleURLFormat           = "url-format"
	RuleLicenseURLMissing   = "license-url-missing"
	RuleDistributionEmpty   = "distribution-empty"
	RuleBinaryOSCoverage    = "binary-os-coverage"
	RuleBinaryArchiveHTTPS  = "binary-archive-https"
	RuleBinaryArchiveFormat = "binary-archive-format"
	RuleBinaryCmdPath       = "binary-cmd-path"
	// RuleBinaryCmdArgs is ours, beyond registry-rules.md: real manifests
	// write arguments into cmd ("./kiro-cli acp"), which no client runs.
	RuleBinaryCmdArgs          = "binary-cmd-args"
	RuleBinaryLatest           = "binary-latest"
	RuleBinaryVersionMismatch  = "binary-version-mismatch"
	RulePackageLatest          = "package-latest"
	RulePackageVersionMismatch = "package-version-mismatch"
	RulePackageUnpinned        = "package-unpinned"
	RulePackageName            = "package-name"
	RulePreviewVersion         = "preview-version"
	RulePreviewDistribution    = "preview-distribution"
	RulePreviewVersionMismatch = "preview-version-mismatch"
	RuleEnvReserved            = "env-reserved"
	// RuleEnvDropped: a variable the launch leaves out, as the public
	// registry's scripts do (a warning: they accept the manifest).
	RuleEnvDropped     = "env-dropped"
	RuleIconMissing    = "icon-missing"
	RuleTextControl    = "text-control"
	RuleURLCredentials = "url-credentials"
	RuleFileOutside    = "file-outside"
	// RuleSHA256Format is ours: a sha256 that is not 64 hexadecimal
	// characters, said with the length seen (the schema's pattern says
	// neither which nor how far off).
	RuleSHA256Format = "sha256-format"
	// RulePlaceholder is ours: a value still holding the placeholder that
	// `acp-registry new` wrote (Placeholder).
	RulePlaceholder = "placeholder"
)

// Placeholder starts every value `acp-registry new` writes for the author
// to replace; validate refuses a manifest that still holds one.
const Placeholder = "REPLACE"
