//go:build !windows

package testkit

func underWine() bool { return false }
