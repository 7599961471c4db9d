// Command measure runs one command and appends its wall time and peak RSS
// to a results file, for bench/run.sh:
//
//	measure -o results.tsv -label "validate ours" -- CMD ARGS...
//
// The line is "label<TAB>wall_ms<TAB>peak_rss_kib<TAB>cpu_ms". Peak RSS is
// the largest resident set of the command or of any process it waited for
// (a shell pipeline's biggest member), as wait4 reports it; cpu_ms is the
// user and system time of the command and what it waited for, which the
// load of a shared machine moves less than the wall time. The command's
// output is discarded; a non-zero exit fails measure with the command's
// stderr tail, so a broken case is not timed as a fast one.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	out := flag.String("o", "", "results file to append to")
	label := flag.String("label", "", "case and side, e.g. \"validate ours\"")
	flag.Parse()
	args := flag.Args()
	if *out == "" || *label == "" || len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: measure -o FILE -label LABEL -- CMD [ARGS...]")
		os.Exit(2)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		tail := stderr.Bytes()
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		fmt.Fprintf(os.Stderr, "measure: %s: %v\n%s\n", *label, err, tail)
		os.Exit(1)
	}
	f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
	defer f.Close()
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Fprintf(f, "%s\t%.3f\t%d\t%.3f\n", *label, float64(wall.Microseconds())/1000, peakRSSKiB(cmd.ProcessState), float64(cpu.Microseconds())/1000)
}
