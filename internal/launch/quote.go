package launch

import (
	"sort"
	"strings"
)

// Shells acp can print a command line for.
const (
	ShellPOSIX      = "sh"         // sh, bash, zsh: Linux, macOS, Git Bash
	ShellCmd        = "cmd"        // cmd.exe
	ShellPowerShell = "powershell" // Windows PowerShell 5.1 and PowerShell 7
)

// Quote joins a command line for display, single-quoting words a POSIX
// shell would split or expand.
func Quote(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quoteWord(w)
	}
	return strings.Join(q, " ")
}

func quoteWord(w string) string {
	if w == "" {
		return "''"
	}
	safe := true
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// CommandLine is one line that shell runs as command with args and env
// added to the environment: what `acp resolve` prints for people to paste.
// Env names come from a registry: a name the shell would not take as a
// plain assignment is set in a way that cannot run anything.
func CommandLine(shell, command string, args []string, env map[string]string) string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	words := append([]string{command}, args...)
	switch shell {
	case ShellCmd:
		return cmdLine(words, keys, env)
	case ShellPowerShell:
		return powerShellLine(words, keys, env)
	}
	return posixLine(words, keys, env)
}

func posixLine(words, keys []string, env map[string]string) string {
	var parts []string
	// A key that is not a shell name ("X;rm -rf ~") would make sh run it
	// as a command, not an assignment: then all assignments go through
	// env(1) as quoted words instead.
	viaEnv := false
	for _, k := range keys {
		viaEnv = viaEnv || !shellName(k)
	}
	if viaEnv {
		parts = append(parts, "env")
	}
	for _, k := range keys {
		if viaEnv {
			parts = append(parts, quoteWord(k+"="+env[k]))
		} else {
			parts = append(parts, k+"="+quoteWord(env[k]))
		}
	}
	return strings.Join(append(parts, Quote(words)), " ")
}

// shellName is what sh takes as the name in a NAME=value assignment.
func shellName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// ArgvQuote quotes one argument so that a Windows program's argv parser
// (CommandLineToArgvW, the C runtime, Go's os.Args) reads it back as it
// was: backslashes are literal unless they precede a double quote.
func ArgvQuote(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n\v\"") {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(a); i++ {
		c := a[i]
		switch c {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
		}
		slashes = 0
		b.WriteByte(c)
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes)) // before the closing quote
	b.WriteByte('"')
	return b.String()
}

// cmdEscape protects an already argv-quoted word from cmd.exe: every
// character cmd gives a meaning, the double quote included (cmd's own
// idea of "inside quotes" would otherwise drift from the program's), gets
// a caret. %VAR% then cannot expand: cmd looks up "VAR^", which is not
// set, and drops the carets afterwards.
func cmdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`()%!^"<>&|`, r) {
			b.WriteByte('^')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func cmdLine(words, keys []string, env map[string]string) string {
	var parts []string
	for _, k := range keys {
		// set "NAME=value" takes everything between the quotes.
		parts = append(parts, "set "+cmdEscape(`"`+k+"="+env[k]+`"`)+" &&")
	}
	for _, w := range words {
		parts = append(parts, cmdEscape(ArgvQuote(w)))
	}
	return strings.Join(parts, " ")
}

// psQuote is a PowerShell single-quoted string: nothing expands inside,
// and a single quote (any of the three PowerShell accepts) is doubled.
func psQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		if r == '\'' || r == '\u2018' || r == '\u2019' || r == '\u201a' || r == '\u201b' {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}

func powerShellLine(words, keys []string, env map[string]string) string {
	var parts []string
	for _, k := range keys {
		if shellName(k) {
			parts = append(parts, "$env:"+k+" = "+psQuote(env[k])+";")
		} else {
			parts = append(parts, "Set-Item -LiteralPath "+psQuote("env:"+k)+" -Value "+psQuote(env[k])+";")
		}
	}
	// & runs a quoted path as a command; --% is avoided: it would expand
	// %VAR% again.
	parts = append(parts, "&")
	for _, w := range words {
		parts = append(parts, psQuote(w))
	}
	return strings.Join(parts, " ")
}
