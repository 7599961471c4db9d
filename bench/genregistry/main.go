// Command genregistry writes a registry of N real-shaped agents for the
// benchmarks: the agents of a registry folder (this repository's agents/,
// or the corpus's) copied round-robin under new ids ("<id>-0042"), with
// only the id value rewritten, so every file keeps its real formatting,
// icon and problems.
//
//	go run ./bench/genregistry -n 5000 -corpus agents -out /tmp/reg-5000
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

func main() {
	n := flag.Int("n", 5000, "number of agents to write")
	out := flag.String("out", "", "folder to write (created; must not hold agents already)")
	corpus := flag.String("corpus", "agents", "registry folder to copy agents from")
	flag.Parse()
	if *out == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: genregistry -n N -out DIR [-corpus DIR]")
		os.Exit(2)
	}
	if err := run(*corpus, *out, *n); err != nil {
		fmt.Fprintln(os.Stderr, "genregistry:", err)
		os.Exit(1)
	}
}

type source struct {
	id         string
	data, icon []byte
	idOff, end int // the id's JSON string in data
}

// idRe finds the id member; corpus manifests are formatted by hand, so
// the exact spacing varies.
var idRe = regexp.MustCompile(`"id"\s*:\s*`)

func run(corpus, out string, n int) error {
	entries, err := os.ReadDir(corpus)
	if err != nil {
		return err
	}
	var srcs []source
	for _, e := range entries {
		if !e.IsDir() || e.Name()[0] == '_' || e.Name()[0] == '.' {
			continue
		}
		data, err := os.ReadFile(filepath.Join(corpus, e.Name(), "agent.json"))
		if err != nil {
			continue
		}
		var m struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(data, &m) != nil || m.ID == "" {
			continue
		}
		loc := idRe.FindIndex(data)
		q := strconv.Quote(m.ID)
		if loc == nil || string(data[loc[1]:min(len(data), loc[1]+len(q))]) != q {
			continue
		}
		icon, _ := os.ReadFile(filepath.Join(corpus, e.Name(), "icon.svg"))
		srcs = append(srcs, source{id: m.ID, data: data, icon: icon, idOff: loc[1], end: loc[1] + len(q)})
	}
	if len(srcs) == 0 {
		return fmt.Errorf("no agents in %s", corpus)
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].id < srcs[j].id })
	for i := 0; i < n; i++ {
		s := srcs[i%len(srcs)]
		id := fmt.Sprintf("%s-%04d", s.id, i)
		dir := filepath.Join(out, id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		data := append(append(append([]byte{}, s.data[:s.idOff]...), strconv.Quote(id)...), s.data[s.end:]...)
		if err := os.WriteFile(filepath.Join(dir, "agent.json"), data, 0o644); err != nil {
			return err
		}
		if s.icon != nil {
			if err := os.WriteFile(filepath.Join(dir, "icon.svg"), s.icon, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
