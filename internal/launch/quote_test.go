package launch

import (
	"errors"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"unicode"
)

// argvParse is CommandLineToArgvW's rule for one argument sequence (the
// C runtime's since 2008), to read back what ArgvQuote wrote.
func argvParse(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote, have := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				switch {
				case n%2 == 1:
					cur.WriteByte('"')
				case inQuote && i+1 < len(s) && s[i+1] == '"': // "" inside quotes, as below
					cur.WriteByte('"')
					i++
				default:
					inQuote = !inQuote
				}
				have = true
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
				i--
				have = true
			}
		case c == '"':
			if inQuote && i+1 < len(s) && s[i+1] == '"' {
				cur.WriteByte('"')
				i++
			} else {
				inQuote = !inQuote
			}
			have = true
		case (c == ' ' || c == '\t') && !inQuote:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}

// cmdUnescape is what cmd.exe does to a command line before the program
// sees it, for lines that cmdEscape wrote: drop each caret, keep the
// character after it.
func cmdUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '^' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

var awkward = []string{
	`C:\Program Files\nodejs\node.exe`, `C:\agents\x\index.js`, "", "plain", "two words",
	`say "hi"`, `trailing\`, `C:\dir with space\`, `a\\"b`, `50%`, `%PATH%`, `!x!`, `a&b|c<d>e^f`, `(x)`, "tab\there",
}

func TestArgvQuoteRoundTrips(t *testing.T) {
	for _, a := range awkward {
		got := argvParse(ArgvQuote(a))
		if len(got) != 1 || got[0] != a {
			t.Errorf("ArgvQuote(%q) = %s, read back as %q", a, ArgvQuote(a), got)
		}
	}
	line := strings.Join(func() []string {
		var q []string
		for _, a := range awkward {
			q = append(q, ArgvQuote(a))
		}
		return q
	}(), " ")
	if got := argvParse(line); strings.Join(got, "\x00") != strings.Join(awkward, "\x00") {
		t.Errorf("the whole line read back as %q", got)
	}
}

func TestCmdLine(t *testing.T) {
	got, err := CommandLine(ShellCmd, `C:\Program Files\nodejs\node.exe`, []string{`C:\a\index.js`, "--acp", `50% & "x"`}, map[string]string{"B": "x&y", "A": "1"})
	// The program plainly quoted: cmd finds a command's name before it
	// drops carets, so ^"C:\Program Files\…^" was split at the space.
	want := `set ^"A=1^" && set ^"B=x^&y^" && "C:\Program Files\nodejs\node.exe" C:\a\index.js --acp ^"50^% ^& \^"x\^"^"`
	if err != nil || got != want {
		t.Fatalf("cmd line\n got  %s (%v)\n want %s", got, err, want)
	}
	// No metacharacter is left bare for cmd: each one has its caret.
	for _, a := range awkward {
		esc := cmdEscape(ArgvQuote(a))
		for i := 0; i < len(esc); i++ {
			if strings.IndexByte(`()%!"<>&|`, esc[i]) >= 0 && (i == 0 || esc[i-1] != '^') {
				t.Errorf("%q: bare %q in %s", a, esc[i], esc)
			}
		}
		if got := argvParse(cmdUnescape(esc)); len(got) != 1 || got[0] != a {
			t.Errorf("%q: cmd then argv read %s as %q", a, esc, got)
		}
	}
	// Inside quotes cmd still expands %VAR%, and no caret helps there: a
	// program path with a % gets a sentence, not a line that runs
	// something else.
	if _, err := CommandLine(ShellCmd, `C:\Users\50%off\agent.exe`, nil, nil); err == nil || !strings.Contains(err.Error(), "powershell") {
		t.Errorf("a %% in the program path: %v", err)
	}
	if got, err := CommandLine(ShellCmd, `C:\a b&(c)^d\agent.exe`, nil, nil); err != nil || got != `"C:\a b&(c)^d\agent.exe"` {
		t.Errorf("program quoted as %s (%v)", got, err)
	}
}

// psLegacy is how Windows PowerShell 5.1 (and 7 before 7.3, or with
// $PSNativeCommandArgumentPassing = 'Legacy') writes one argument into a
// native program's command line: an empty string is dropped, one with
// whitespace outside (unescaped) double quotes is wrapped in quotes, and
// anything else goes verbatim.
func psLegacy(a string) (string, bool) {
	if a == "" {
		return "", false
	}
	following, quotes := false, 0
	for _, r := range a {
		if r == '"' && !following {
			quotes++
		} else if unicode.IsSpace(r) && quotes%2 == 0 {
			return `"` + a + `"`, true
		}
		following = r == '\\'
	}
	return a, true
}

func TestPowerShellLine(t *testing.T) {
	got, err := CommandLine(ShellPowerShell, `C:\Program Files\nodejs\node.exe`, []string{"it's", "$HOME", "`n"}, map[string]string{"OK": "a'b", "bad;name": "v"})
	want := `$env:OK = 'a''b'; Set-Item -LiteralPath 'env:bad;name' -Value 'v'; & 'C:\Program Files\nodejs\node.exe' 'it''s' '$HOME' '` + "`n'"
	if err != nil || got != want {
		t.Fatalf("powershell line\n got  %s\n want %s", got, want)
	}
	if q := psQuote("a\u2019b"); q != "'a\u2019\u2019b'" {
		t.Errorf("typographic quote: %s", q)
	}
	// What 5.1 cannot pass as itself (an empty argument, a double quote,
	// a spaced argument ending in a backslash) goes another way there:
	// the line asks which way PowerShell passes arguments.
	got, _ = CommandLine(ShellPowerShell, `C:\agent.exe`, []string{"", `say "hi"`, `C:\dir with space\`}, nil)
	want = `if ((Get-Variable PSNativeCommandArgumentPassing -ValueOnly -ErrorAction Ignore) -in 'Standard', 'Windows') { & 'C:\agent.exe' '' 'say "hi"' 'C:\dir with space\' } else { & 'C:\agent.exe' '""' '"say \"hi\""' '"C:\dir with space\\"' }`
	if got != want {
		t.Fatalf("powershell line\n got  %s\n want %s", got, want)
	}
	// The legacy branch's words reach the program as themselves.
	for _, a := range append(awkward, "nb\u00a0sp\\", "x\u2003\"y\"") {
		w, ok := psLegacy(legacyWord(a))
		if got := argvParse(w); !ok || len(got) != 1 || got[0] != a {
			t.Errorf("%q: 5.1 passes %q, read back as %q", a, w, got)
		}
	}
}

func TestPOSIXLine(t *testing.T) {
	got, _ := CommandLine(ShellPOSIX, "/opt/my agents/bin/agent", []string{"--acp", "it's", ""}, map[string]string{"B": "x y", "A": "1"})
	want := `A=1 B='x y' '/opt/my agents/bin/agent' --acp 'it'\''s' ''`
	if got != want {
		t.Fatalf("sh line\n got  %s\n want %s", got, want)
	}
	if runtime.GOOS == "windows" {
		return
	}
	line, _ := CommandLine(ShellPOSIX, "printf", []string{"[%s]", "/opt/my agents", "it's", "", "$HOME"}, nil)
	out, err := exec.Command("sh", "-c", line).Output()
	if err != nil || string(out) != "[/opt/my agents][it's][][$HOME]" {
		t.Fatalf("sh read it as %s (%v)", out, err)
	}
	// A hostile key goes through env(1) as a quoted word.
	if got, _ := CommandLine(ShellPOSIX, "/usr/bin/env", nil, map[string]string{"X;touch pwned": "1", "OK": "2"}); got != `env OK=2 'X;touch pwned=1' /usr/bin/env` {
		t.Errorf("hostile key: %s", got)
	}
}

// The command line a .cmd agent is run with (Windows' batchCommand), by
// Rust's post-BatBadBut rules: cmd's own quoting, % broken up, line
// breaks refused. TestBatchAgentGetsHostileArgumentsVerbatim runs these
// through a real cmd.exe.
func TestBatCommandLine(t *testing.T) {
	got, err := batCommandLine(`C:\a b\agent.cmd`, []string{`q"&echo INJECTED`, `100%`, `plain`, ``, `x\`, `a\"b`, `!`, `^`})
	if err != nil {
		t.Fatal(err)
	}
	want := `cmd.exe /e:ON /v:OFF /d /c ""C:\a b\agent.cmd" "q""&echo INJECTED" "100%%cd:~,%" plain "" "x\\" "a\\""b" "!" "^""`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, bad := range []string{"a\nb", "a\rb"} {
		if _, err := batCommandLine(`C:\x\agent.cmd`, []string{"ok", bad}); !errors.Is(err, ErrBatchArgument) || !strings.Contains(err.Error(), "agent.cmd") || !strings.Contains(err.Error(), "argument 2") {
			t.Errorf("%q: got %v, want ErrBatchArgument naming agent.cmd and argument 2", bad, err)
		}
	}
	if _, err := batCommandLine(`C:\x"y\agent.cmd`, nil); !errors.Is(err, ErrBatchArgument) {
		t.Errorf("a path holding a quote: got %v, want ErrBatchArgument", err)
	}
}
