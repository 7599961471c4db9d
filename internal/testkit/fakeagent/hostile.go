package fakeagent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Hostile behaviours: agents that try to outlive the check, to reach the
// caller through /proc or the terminal, or to smuggle control characters
// into what the caller prints. The processes Daemon and SetsidChild leave
// carry --fake-token=$ACP_FAKE_TOKEN on their command line, so a test
// finds them in /proc whatever PID namespace they live in.
const (
	// Daemon double-forks a grandchild that calls setsid() and stays; it
	// answers once the grandchild runs (it touches ACP_FAKE_READY).
	Daemon = "daemon"
	// SetsidChild starts a child that calls setsid() and stays, then
	// answers.
	SetsidChild = "setsid-child"
	// Snoop tries to read the environment of its parent and of the pid in
	// ACP_FAKE_TARGET_PID through /proc, to write into their stdout
	// through /proc/<pid>/fd/1, and to open /dev/tty; it writes what
	// worked as JSON to ACP_FAKE_REPORT, then answers.
	Snoop = "snoop"
	// HostileText answers with auth methods, capabilities, args and
	// variables full of escape sequences, CR/LF, C1 and bidi controls and
	// workflow commands, and writes the same on stderr. With
	// ACP_FAKE_NO_TERMINAL set it offers no terminal method (and fails).
	HostileText = "hostile-text"
	// WrongIDType answers initialize with the id as a string ("1").
	WrongIDType = "wrong-id-type"
	// DeepJSON answers with a result nested 100,000 levels deep.
	DeepJSON = "deep-json"
	// ManyMethods answers with 10,000 auth methods.
	ManyMethods = "many-methods"
	// DuplicateKeys answers with authMethods given twice.
	DuplicateKeys = "duplicate-keys"

	daemonChild = "daemon-child" // internal: the double fork's middle
	stayChild   = "stay-child"   // internal: calls setsid, stays
)

// Nasty is the text HostileText hides in every field.
const Nasty = "\x1b]0;pwned\x07\x1b[2J\r\n::error file=x::forged\n::add-mask::x\u009b31m\u202egnp.exe\u0085"

// runHostile runs the hostile behaviours and never returns for them; it
// returns false for any other mode. (Test code, and one flat case per
// behaviour, each a few lines: splitting it would only scatter the list.)
func runHostile(mode string) bool {
	switch mode {
	case daemonChild:
		// The middle of a double fork: start the daemon, exit at once.
		spawn(stayChild, newSession)
		os.Exit(0)
	case stayChild:
		if err := os.WriteFile(os.Getenv("ACP_FAKE_READY"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			os.Exit(2)
		}
		for {
			time.Sleep(time.Hour)
		}
	case Daemon, SetsidChild:
		if mode == Daemon {
			spawn(daemonChild, sameSession)
		} else {
			spawn(stayChild, newSession)
		}
		for i := 0; i < 500; i++ {
			if _, err := os.Stat(os.Getenv("ACP_FAKE_READY")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		answerWith(validMethods)
	case Snoop:
		report := map[string]string{}
		try := func(what string, f func() error) {
			if err := f(); err != nil {
				report[what] = "refused: " + err.Error()
			} else {
				report[what] = "worked"
			}
		}
		for _, who := range []struct{ name, pid string }{{"parent", strconv.Itoa(os.Getppid())}, {"target", os.Getenv("ACP_FAKE_TARGET_PID")}} {
			try(who.name+" environ", func() error {
				data, err := os.ReadFile("/proc/" + who.pid + "/environ")
				if err == nil && len(data) == 0 {
					return fmt.Errorf("empty")
				}
				return err
			})
			try(who.name+" stdout", func() error {
				f, err := os.OpenFile("/proc/"+who.pid+"/fd/1", os.O_WRONLY, 0)
				if err != nil {
					return err
				}
				defer f.Close()
				_, err = f.WriteString("PWNED by the agent\n")
				return err
			})
		}
		try("tty", func() error {
			f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString("\x1b]0;pwned\x07")
			return err
		})
		data, _ := json.Marshal(report)
		if err := os.WriteFile(os.Getenv("ACP_FAKE_REPORT"), data, 0o600); err != nil {
			os.Exit(2)
		}
		answerWith(validMethods)
	case HostileText:
		os.Stderr.WriteString("stderr says " + Nasty + "\n::error::from stderr\n")
		n, _ := json.Marshal(Nasty)
		s := string(n)
		methods := `[{"id":` + s + `,"name":` + s + `,"type":"terminal","args":[` + s + `]},` +
			`{"id":"key","name":"Key","type":"env_var","vars":[{"name":` + s + `}]},` +
			`{"id":"k2","name":"K2","type":` + s + `}]`
		if os.Getenv("ACP_FAKE_NO_TERMINAL") != "" {
			// No terminal method: the verdict fails, its reason naming
			// the others.
			methods = `[{"id":"key","name":"Key","type":"env_var","vars":[{"name":` + s + `}]},{"id":` + s + `,"name":"K2","type":` + s + `}]`
		}
		in := bufio.NewReader(os.Stdin)
		req, err := readRequest(in)
		if err != nil {
			os.Exit(2)
		}
		a := answer(string(req.ID), methods)
		a = strings.Replace(a, `"loadSession":true`, `"loadSession":true,`+s+`:true,"x":{`+s+`:true}`, 1)
		a = strings.Replace(a, `"name":"fake-agent"`, `"name":`+s, 1)
		os.Stdout.WriteString(a + "\n")
		wait()
	case WrongIDType, DeepJSON, ManyMethods, DuplicateKeys:
		in := bufio.NewReader(os.Stdin)
		req, err := readRequest(in)
		if err != nil {
			os.Exit(2)
		}
		id := string(req.ID)
		var line string
		switch mode {
		case WrongIDType:
			line = answer(strconv.Quote(id), validMethods)
		case DeepJSON:
			line = `{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":1,"x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}`
		case ManyMethods:
			ms := make([]string, 10000)
			for i := range ms {
				ms[i] = fmt.Sprintf(`{"id":"m%d","name":"Method %d","type":"env_var","vars":[{"name":"V%d"}]}`, i, i, i)
			}
			line = answer(id, "["+strings.Join(ms, ",")+"]")
		case DuplicateKeys:
			line = strings.Replace(answer(id, validMethods), `"authMethods":`, `"authMethods":[],"authMethods":`, 1)
		}
		os.Stdout.WriteString(line + "\n")
		wait()
	default:
		return false
	}
	return true
}

// session is where spawn starts a process.
type session int

const (
	sameSession session = iota
	newSession          // setsid: a session and process group of its own
)

// spawn starts this binary again as behaviour, detached from our stdio
// (as a daemon would).
func spawn(behaviour string, s session) {
	cmd := exec.Command(os.Args[0], "--fake-token="+os.Getenv("ACP_FAKE_TOKEN"))
	cmd.Env = append(os.Environ(), "ACP_FAKE_AGENT="+behaviour)
	if s == newSession {
		cmd.SysProcAttr = setsidAttr()
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fake agent:", err)
		os.Exit(2)
	}
}

// answerWith reads initialize, answers it with methods and waits.
func answerWith(methods string) {
	in := bufio.NewReader(os.Stdin)
	req, err := readRequest(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake agent:", err)
		os.Exit(2)
	}
	os.Stdout.WriteString(answer(string(req.ID), methods) + "\n")
	wait()
}
