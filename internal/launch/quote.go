package launch

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
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
// plain assignment is set in a way that cannot run anything. The cmd.exe
// line is refused for a program path holding a %, which cmd expands
// inside quotes, where no escape reaches.
func CommandLine(shell, command string, args []string, env map[string]string) (string, error) {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	words := append([]string{command}, args...)
	switch shell {
	case ShellCmd:
		if strings.Contains(command, "%") {
			return "", fmt.Errorf("cmd.exe cannot run %s: it would expand the %% in the path even inside quotes; use --shell powershell", command)
		}
		return cmdLine(words, keys, env), nil
	case ShellPowerShell:
		return powerShellLine(words, keys, env), nil
	}
	return posixLine(words, keys, env), nil
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
	return argvQuoted(a)
}

// argvQuoted is ArgvQuote's quoted form, whether a needs it or not.
func argvQuoted(a string) string {
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
	// The program plainly quoted (a Windows path holds no "): cmd takes a
	// command's name before it drops carets, so a ^" there does not open
	// a quote and the name would end at the first space.
	parts = append(parts, `"`+words[0]+`"`)
	for _, w := range words[1:] {
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
	call := func(word func(string) string) string {
		q := []string{"&", psQuote(words[0])}
		for _, w := range words[1:] {
			q = append(q, word(w))
		}
		return strings.Join(q, " ")
	}
	standard := call(psQuote)
	if !slices.ContainsFunc(words[1:], legacyMangles) {
		return strings.Join(append(parts, standard), " ")
	}
	// Windows PowerShell 5.1 (and 7 before 7.3, or with Legacy) writes an
	// argument into the program's command line as it is, wrapped in
	// quotes only when it has whitespace outside quotes, and drops an
	// empty one: there the line carries each argument already quoted for
	// the program. Which way applies is asked at run time (without
	// touching an unset variable, which strict mode refuses).
	legacy := call(func(w string) string { return psQuote(legacyWord(w)) })
	parts = append(parts, "if ((Get-Variable PSNativeCommandArgumentPassing -ValueOnly -ErrorAction Ignore) -in 'Standard', 'Windows') { "+standard+" } else { "+legacy+" }")
	return strings.Join(parts, " ")
}

// legacyMangles reports an argument that legacy passing does not deliver
// as itself: empty, holding a double quote, or with whitespace and a
// final backslash (the quote legacy adds would be escaped by it).
func legacyMangles(a string) bool {
	return a == "" || strings.Contains(a, `"`) || strings.HasSuffix(a, `\`) && strings.IndexFunc(a, unicode.IsSpace) >= 0
}

// legacyWord is a quoted for the program's argv parser in every case:
// legacy passing then finds no whitespace outside quotes and passes it
// verbatim (every inner quote follows a backslash, which legacy's scan
// takes as escaping it).
func legacyWord(a string) string { return argvQuoted(a) }

// batCommandLine is the command line that has cmd.exe run the batch file
// script with args delivered as they are, by the rules Rust's standard
// library adopted after BatBadBut (CVE-2024-24576): cmd parses a batch
// file's arguments itself, so argv quoting does not protect them. The
// line is `cmd.exe /e:ON /v:OFF /d /c ""script" args"`: delayed expansion
// (!VAR!) off, AutoRun off; an argument with anything but letters, digits
// and #$*+-./:?@\_ is quoted, a " inside doubled, and each % becomes
// %%cd:~,% (cmd expands the empty substring of %cd% and leaves the %, so
// no %VAR% can form). A line break ends a command in cmd wherever it
// stands: no quoting makes it safe, so an argument holding one is refused
// (ErrBatchArgument), as is a script path that cannot be quoted.
func batCommandLine(script string, args []string) (string, error) {
	if strings.Contains(script, `"`) || strings.HasSuffix(script, `\`) {
		return "", fmt.Errorf("%w: the batch file's path %q holds a \" or ends in \\", ErrBatchArgument, script)
	}
	var b strings.Builder
	b.WriteString(`cmd.exe /e:ON /v:OFF /d /c ""`)
	b.WriteString(script)
	b.WriteByte('"')
	for i, a := range args {
		if strings.ContainsAny(a, "\r\n\x00") {
			return "", fmt.Errorf("%w: %s is run by cmd.exe, which ends the command at a line break whatever the quoting, and argument %d holds one", ErrBatchArgument, filepathBase(script), i+1)
		}
		b.WriteByte(' ')
		writeBatArg(&b, a)
	}
	b.WriteByte('"')
	return b.String(), nil
}

func writeBatArg(b *strings.Builder, a string) {
	quote := a == "" || strings.HasSuffix(a, `\`)
	for _, r := range a {
		if r < 0x80 && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(`#$*+-./:?@\_`, r)) || unicode.IsControl(r) {
			quote = true
			break
		}
	}
	if quote {
		b.WriteByte('"')
	}
	slashes := 0
	for _, r := range a {
		switch r {
		case '\\':
			slashes++
			b.WriteRune(r)
			continue
		case '"':
			// The backslashes before it doubled, it doubled: inside quotes
			// the program's argv parser reads "" as one ".
			b.WriteString(strings.Repeat(`\`, slashes))
			b.WriteByte('"')
		case '%':
			b.WriteString("%%cd:~,")
		}
		slashes = 0
		b.WriteRune(r)
	}
	if quote {
		b.WriteString(strings.Repeat(`\`, slashes)) // before the closing quote
		b.WriteByte('"')
	}
}

// filepathBase is the file name of a Windows path on any OS, for
// messages about a batch file (the rules above are tested everywhere).
func filepathBase(p string) string {
	if i := strings.LastIndexAny(p, `\/`); i >= 0 {
		return p[i+1:]
	}
	return p
}
