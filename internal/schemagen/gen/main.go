// Command gen writes validate/schemafast.go from validate's embedded
// agent.schema.json (run by go generate ./validate).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/agentclientprotocol/acp-registry-go/internal/schemagen"
)

func main() {
	schema := flag.String("schema", "schema/agent.schema.json", "schema file")
	out := flag.String("out", "schemafast.go", "Go file to write")
	pkg := flag.String("pkg", "validate", "package name")
	name := flag.String("func", "conformsFast", "function name")
	flag.Parse()
	data, err := os.ReadFile(*schema)
	if err == nil {
		data, err = schemagen.Fast(data, *pkg, *name)
	}
	if err == nil {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}
