//go:build !linux

package store

// procsCanTell: elsewhere a process's open files are not cheaply known;
// a version resolved recently (MarkUsed) counts as in use instead.
const procsCanTell = false

func scanProcesses(root string) []procUse { return nil }
