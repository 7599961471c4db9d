// Command floor is the least any validator of a registry must do: read
// every <id>/agent.json and <id>/icon.svg under a root and decode every
// agent.json, on 4 goroutines. bench/run.sh times validate and build
// against it (issue 11: the ratio to this floor is the target).
//
//	floor ROOT
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor ROOT")
		os.Exit(2)
	}
	root := os.Args[1]
	entries, err := os.ReadDir(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	dirs := make(chan string)
	var mu sync.Mutex
	agents, bytes := 0, 0
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for dir := range dirs {
				manifest, err := os.ReadFile(filepath.Join(dir, "agent.json"))
				if err != nil {
					continue
				}
				var v map[string]any
				if err := json.Unmarshal(manifest, &v); err != nil {
					fmt.Fprintf(os.Stderr, "floor: %s: %v\n", dir, err)
				}
				icon, _ := os.ReadFile(filepath.Join(dir, "icon.svg"))
				mu.Lock()
				agents++
				bytes += len(manifest) + len(icon)
				mu.Unlock()
			}
		}()
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(e.Name(), "_") {
			dirs <- filepath.Join(root, e.Name())
		}
	}
	close(dirs)
	wg.Wait()
	fmt.Printf("%d agents, %d bytes\n", agents, bytes)
}
