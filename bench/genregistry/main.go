// Command genregistry writes a registry of N real-shaped agents (a third
// each binary, npx and uvx, every one with a valid monochrome icon) for
// bench/run.sh:
//
//	genregistry -n 5000 DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

const icon = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><path d="M2 2h12v12H2z" fill="currentColor"/></svg>
`

func main() {
	n := flag.Int("n", 5000, "number of agents")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genregistry [-n N] DIR")
		os.Exit(2)
	}
	root := flag.Arg(0)
	for i := range *n {
		id := fmt.Sprintf("agent-%05d", i)
		var dist string
		switch i % 3 {
		case 0:
			u := "https://github.com/example/" + id + "/releases/download/v1.2.3/" + id
			dist = fmt.Sprintf(`"binary": {
      "darwin-aarch64": {"archive": "%[1]s-darwin-arm64.tar.gz", "cmd": "./%[2]s"},
      "linux-x86_64": {"archive": "%[1]s-linux-x64.tar.gz", "cmd": "./%[2]s"},
      "windows-x86_64": {"archive": "%[1]s-windows-x64.zip", "cmd": "%[2]s.exe"}
    }`, u, id)
		case 1:
			dist = fmt.Sprintf(`"npx": {"package": "@example/%s@1.2.3", "args": ["--acp"]}`, id)
		default:
			dist = fmt.Sprintf(`"uvx": {"package": "%s==1.2.3"}`, id)
		}
		manifest := fmt.Sprintf(`{
  "id": %q,
  "name": "Agent %d",
  "version": "1.2.3",
  "description": "A generated agent for benchmarks",
  "repository": "https://github.com/example/%s",
  "authors": ["Example"],
  "license": "MIT",
  "license_url": "https://example.com/license",
  "distribution": {
    %s
  }
}
`, id, i, id, dist)
		dir := filepath.Join(root, id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "agent.json"), []byte(manifest), 0o644); err != nil {
			fail(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "icon.svg"), []byte(icon), 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genregistry:", err)
	os.Exit(1)
}
