package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"
)

func TestCodeMapsErrorKinds(t *testing.T) {
	cases := []struct {
		err  error
		code int
		msg  string
	}{
		{nil, ExitOK, ""},
		{errors.New("install gemini: download: 404"), ExitFailure, "acp: install gemini: download: 404\n"},
		{Usagef("unknown distribution %q", "rpm"), ExitUsage, "acp: unknown distribution \"rpm\"\n"},
		{fmt.Errorf("wrapped: %w", ErrProblems), ExitProblems, ""},
		{&ExitError{Code: 7}, 7, ""},
		{&ExitError{Code: 1, Msg: "agent not installed"}, 1, "acp: agent not installed\n"},
		{errors.New("acp: already prefixed"), ExitFailure, "acp: already prefixed\n"},
		// Our errors that merely contain cobra's words are failures.
		{fmt.Errorf("agent %q: %w", "unknown command", errors.New("not found")), ExitFailure, "acp: agent \"unknown command\": not found\n"},
		{fmt.Errorf("write /x: %w", syscall.EINVAL), ExitFailure, "acp: write /x: invalid argument\n"},
		{errors.New(`accepts 1 arg(s), received 2`), ExitUsage, "acp: accepts 1 arg(s), received 2\n"},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		if got := Code("acp", c.err, &buf); got != c.code || buf.String() != c.msg {
			t.Errorf("Code(%v) = %d, %q; want %d, %q", c.err, got, buf.String(), c.code, c.msg)
		}
	}
}

func TestExecuteUsageErrorsExit2WithUsage(t *testing.T) {
	newRoot := func() *cobra.Command {
		root := &cobra.Command{Use: "tool", SilenceErrors: true, SilenceUsage: true}
		root.AddCommand(&cobra.Command{Use: "sub ID", Args: cobra.ExactArgs(1), RunE: func(*cobra.Command, []string) error { return nil }})
		root.AddCommand(&cobra.Command{Use: "fail", RunE: func(*cobra.Command, []string) error { return errors.New("it broke") }})
		return root
	}
	for _, c := range []struct {
		args  []string
		code  int
		usage bool
	}{
		{[]string{"sub", "x"}, 0, false},
		{[]string{"sub"}, 2, true},
		{[]string{"sub", "x", "--nope"}, 2, true},
		{[]string{"nosuch"}, 2, true},
		{[]string{"fail"}, 1, false},
	} {
		root := newRoot()
		var stderr bytes.Buffer
		root.SetArgs(c.args)
		root.SetErr(&stderr)
		got := Execute(context.Background(), "tool", root, &stderr)
		if got != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, got, c.code, stderr.String())
		}
		if hasUsage := strings.Contains(stderr.String(), "Usage:"); hasUsage != c.usage {
			t.Errorf("%v: usage printed = %v, want %v", c.args, hasUsage, c.usage)
		}
	}
}

func TestWriteJSONIsIndentedUnescapedWithNewline(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, map[string]string{"url": "https://x/?a=1&b=<2>"}); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"url\": \"https://x/?a=1&b=<2>\"\n}\n"
	if buf.String() != want {
		t.Errorf("WriteJSON = %q, want %q", buf.String(), want)
	}
}
