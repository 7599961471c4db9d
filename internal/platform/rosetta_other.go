//go:build !darwin

package platform

// rosettaTranslated is false off macOS: there is no translation layer to see.
func rosettaTranslated() bool { return false }
