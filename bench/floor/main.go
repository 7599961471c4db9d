// Command floor is the reference that validate's speed is measured
// against (issue 11): it does only what no validator can skip. It lists a
// registry folder, reads every agent.json and icon.svg and decodes every
// agent.json with encoding/json, on 4 goroutines, and prints how many
// agents it read. bench/ runs it interleaved with `acp-registry validate
// --skip-urls` on the same tree and reports the ratio.
//
//	go run ./bench/floor DIR
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor REGISTRY_DIR")
		os.Exit(2)
	}
	root := os.Args[1]
	entries, err := os.ReadDir(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	var agents, bytes atomic.Int64
	next := make(chan string, 64)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for dir := range next {
				data, err := os.ReadFile(filepath.Join(dir, "agent.json"))
				if err != nil {
					continue
				}
				var v any
				if json.Unmarshal(data, &v) == nil {
					agents.Add(1)
				}
				icon, _ := os.ReadFile(filepath.Join(dir, "icon.svg"))
				bytes.Add(int64(len(data) + len(icon)))
			}
		}()
	}
	for _, e := range entries {
		if e.IsDir() {
			next <- filepath.Join(root, e.Name())
		}
	}
	close(next)
	wg.Wait()
	fmt.Printf("%d agents, %d bytes\n", agents.Load(), bytes.Load())
}
