//go:build !unix

package source

// Windows has no FIFOs at file paths (named pipes live under \\.\pipe\).
const openNonBlock = 0
