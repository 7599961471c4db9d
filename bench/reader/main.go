// Command reader reads one small JSON file, decodes it and prints it: the
// least a program that answers `acp resolve --json` from disk can do.
// bench/run.sh times `acp resolve` of an installed agent against it.
//
//	reader FILE
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: reader FILE")
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "reader:", err)
		os.Exit(1)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		fmt.Fprintln(os.Stderr, "reader:", err)
		os.Exit(1)
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	fmt.Printf("%s\n", out)
}
