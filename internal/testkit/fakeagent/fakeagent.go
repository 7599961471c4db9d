package fakeagent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentclientprotocol/acp-registry-go/internal/launch"
)

// Behaviours, the values of ACP_FAKE_AGENT.
const (
	Valid            = "valid"             // answers with a terminal and an agent method
	LogBefore        = "log-before"        // a plain log line on stdout first
	NotifyBefore     = "notify-before"     // a session/update notification first
	OtherIDWithAuth  = "other-id-auth"     // a response for id 999 carrying auth methods, then an answer with none
	OtherIDNoAuth    = "other-id-noauth"   // a response for id 999 with none, then a good answer
	AgentRequest     = "agent-request"     // asks the client something first; answers only once refused with -32601
	Split            = "split"             // the answer arrives in three writes
	AuthEmpty        = "auth-empty"        // authMethods: []
	AuthMissing      = "auth-missing"      // no authMethods
	EnvVarOnly       = "env-var-only"      // only an env_var method
	MetaTyped        = "meta-typed"        // no type, _meta["terminal-auth"] (the older form)
	Untyped          = "untyped"           // no type, no _meta: agent by default
	ErrorAnswer      = "error"             // a JSON-RPC error object
	StderrFlood      = "stderr-flood"      // 1 MiB on stderr, then a good answer
	Silent           = "silent"            // reads, never answers
	HalfLine         = "half-line"         // half a JSON line, then silence
	StdoutFlood      = "stdout-flood"      // 50 MB on stdout without a newline
	ExitNow          = "exit-now"          // complains on stderr and exits 1 at once
	V2Terminal       = "v2-terminal"       // v2 shape: methodId, env as a list
	ExitAfterMessage = "exit-after-answer" // answers, then exits 0 at once
	OrphanExit       = "orphan-exit"       // starts a silent child that keeps stdout open, exits 3
)

// Main runs the fake agent and exits.
func Main() {
	if rec := os.Getenv("ACP_FAKE_RECORD"); rec != "" {
		record(rec)
	}
	if rep := os.Getenv("ACP_FAKE_FDS"); rep != "" {
		reportFDs(rep)
	}
	if slices.Contains(os.Args[1:], "--fake-login") {
		fmt.Println("fake login: signed in")
		fmt.Println("fake login: args:", strings.Join(os.Args[1:], " "), "FAKE_METHOD_ENV="+os.Getenv("FAKE_METHOD_ENV"), "FAKE_LEGACY="+os.Getenv("FAKE_LEGACY"))
		code, _ := strconv.Atoi(os.Getenv("ACP_FAKE_EXIT"))
		os.Exit(code)
	}
	mode := runShim(os.Getenv("ACP_FAKE_AGENT"))
	if runHostile(mode) || runGreedy(mode) {
		return
	}
	if mode == OrphanExit {
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "ACP_FAKE_AGENT="+Silent)
		child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "fake agent:", err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "launcher: handing over to the agent")
		os.Exit(3)
	}
	if extra(mode) {
		return
	}
	if mode == ExitNow {
		fmt.Fprintln(os.Stderr, "fatal: cannot find configuration")
		os.Exit(1)
	}
	in := bufio.NewReader(os.Stdin)
	req, err := readRequest(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake agent:", err)
		os.Exit(2)
	}
	if d, err := time.ParseDuration(os.Getenv("ACP_FAKE_DELAY")); err == nil {
		time.Sleep(d)
	}
	id := string(req.ID)
	out := bufio.NewWriter(os.Stdout)
	emit := func(s string) { out.WriteString(s + "\n"); out.Flush() }

	before(mode, id, in, out, emit)
	if mode == TerminalIfOptedIn {
		emit(answer(id, optedInMethods(req.Params)))
	} else if !emitVersioned(mode, id, emit) {
		emitAnswer(mode, id, emit)
	}
	if mode == ExitAfterMessage {
		os.Exit(0)
	}
	if serveSessions(mode, in, emit) || serveV2(mode, in, emit) {
		return
	}
	wait()
}

// before is what a behaviour does before its initialize answer (some
// never answer).
func before(mode, id string, in *bufio.Reader, out *bufio.Writer, emit func(string)) {
	switch mode {
	case LogBefore:
		emit("Starting fake agent v1.0 (this line breaks the stdio rule)")
	case NotifyBefore:
		emit(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}}`)
	case OtherIDWithAuth:
		emit(`{"jsonrpc":"2.0","id":999,"result":{"protocolVersion":1,"authMethods":[{"id":"login","name":"Login","type":"terminal"}]}}`)
		emit(answer(id, `[]`))
		wait()
	case OtherIDNoAuth:
		emit(`{"jsonrpc":"2.0","id":999,"result":{"protocolVersion":1}}`)
	case AgentRequest:
		emit(`{"jsonrpc":"2.0","id":"agent-1","method":"fs/read_text_file","params":{"path":"/etc/hostname"}}`)
		var reply struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		line, err := in.ReadBytes('\n')
		if err != nil || json.Unmarshal(line, &reply) != nil || string(reply.ID) != `"agent-1"` || reply.Error == nil || reply.Error.Code != -32601 {
			fmt.Fprintf(os.Stderr, "fake agent: expected a -32601 error for agent-1, got %q\n", line)
			wait()
		}
	case StderrFlood:
		chunk := strings.Repeat("log line from a very chatty agent.....\n", 1024) // 40 KiB
		for i := 0; i < 26; i++ {
			os.Stderr.WriteString(chunk)
		}
		os.Stderr.WriteString("last stderr line\n")
	case Silent:
		wait()
	case HalfLine:
		out.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVer`)
		out.Flush()
		wait()
	case StdoutFlood:
		buf := []byte(strings.Repeat("x", 1<<20))
		for i := 0; i < 50; i++ {
			if _, err := os.Stdout.Write(buf); err != nil {
				os.Exit(3)
			}
		}
		wait()
	case Split:
		a := answer(id, validMethods) + "\n"
		n := len(a) / 3
		for _, part := range []string{a[:n], a[n : 2*n], a[2*n:]} {
			os.Stdout.WriteString(part)
			time.Sleep(30 * time.Millisecond)
		}
		wait()
	}
}

// emitAnswer writes the initialize answer of a behaviour.
func emitAnswer(mode, id string, emit func(string)) {
	switch mode {
	case AuthEmpty:
		emit(answer(id, `[]`))
	case AuthMissing:
		emit(answer(id, ""))
	case EnvVarOnly:
		emit(answer(id, `[{"id":"openai","name":"OpenAI API key","type":"env_var","vars":[{"name":"OPENAI_API_KEY"}]}]`))
	case MetaTyped:
		emit(answer(id, `[{"id":"cli-login","name":"Log in with the CLI","_meta":{"terminal-auth":{"command":"fake-cli","args":["--fake-login"],"env":{"FAKE_LEGACY":"1"},"label":"fake-cli login"}}}]`))
	case Untyped:
		emit(answer(id, `[{"id":"oauth","name":"Sign in"}]`))
	case ErrorAnswer:
		emit(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"Internal error","data":"config file is corrupt"}}`)
	case V2Terminal:
		emit(answer(id, `[{"methodId":"tui","name":"Terminal login","type":"terminal","args":["--fake-login"],"env":[{"name":"FAKE_METHOD_ENV","value":"from-method"}]}]`))
	default:
		a := answer(id, validMethods)
		if advertisesClose(mode) {
			a = strings.Replace(a, `"sessionCapabilities":{"list":{},"resume":{}}`, `"sessionCapabilities":{"list":{},"resume":{},"close":{}}`, 1)
		}
		emit(a)
	}
}

const validMethods = `[{"id":"terminal-login","name":"Log in in the terminal","type":"terminal","args":["--fake-login"],"env":{"FAKE_METHOD_ENV":"from-method"}},{"id":"api-key","name":"API key","type":"env_var","vars":[{"name":"FAKE_API_KEY"}]}]`

// answer is a full initialize result modelled on real agents' answers
// (protocol-matrix snapshots), with authMethods as given ("" leaves it out).
func answer(id, methods string) string {
	auth := ""
	if methods != "" {
		auth = `,"authMethods":` + methods
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":1,` +
		`"agentInfo":{"name":"fake-agent","title":"Fake Agent","version":"1.2.3"},` +
		`"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true,"audio":false,"embeddedContext":true},` +
		`"mcpCapabilities":{"http":true,"sse":false},"sessionCapabilities":{"list":{},"resume":{}},"auth":{"logout":{}}}` +
		auth + `,"_meta":{"fake":{"unknown":"kept"}}}}`
}

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func readRequest(in *bufio.Reader) (request, error) {
	line, err := in.ReadBytes('\n')
	if err != nil {
		return request{}, fmt.Errorf("read initialize: %w", err)
	}
	var r request
	if err := json.Unmarshal(line, &r); err != nil || r.Method != "initialize" || len(r.ID) == 0 {
		return r, fmt.Errorf("expected an initialize request, got %q", line)
	}
	if rec := os.Getenv("ACP_FAKE_INIT_RECORD"); rec != "" {
		if err := os.WriteFile(rec, r.Params, 0o600); err != nil {
			return r, fmt.Errorf("record initialize: %w", err)
		}
	}
	return r, nil
}

// wait blocks until stdin closes or the process is killed, like an agent
// waiting for its next request.
func wait() {
	buf := make([]byte, 4096)
	for {
		if _, err := os.Stdin.Read(buf); err != nil {
			os.Exit(0)
		}
	}
}

// reportFDs writes the descriptors this process holds, as a map from
// number to what /proc/self/fd says it is, to path (Linux only; elsewhere
// an empty map). The listing's own descriptor is in it (a path ending in
// /fd), and so may be the Go runtime's (anon_inode:…).
func reportFDs(path string) {
	fds := map[string]string{}
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil {
			fds[e.Name()] = target
		}
	}
	data, _ := json.Marshal(fds)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "fake agent: fds:", err)
		os.Exit(2)
	}
}

func record(path string) {
	data, _ := json.Marshal(map[string]any{"args": os.Args[1:], "env": os.Environ()})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "fake agent: record:", err)
		os.Exit(2)
	}
}

// Spec is the launch spec of this test binary as a fake agent with the
// given behaviour (the test's TestMain must call Main when ACP_FAKE_AGENT
// is set). The behaviour travels in the spec's env (the manifest env), the
// only host-independent way into a sandboxed environment; extra holds
// more name, value pairs.
func Spec(t testing.TB, behaviour string, extra ...string) launch.Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ACP_FAKE_AGENT": behaviour}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return launch.Spec{Command: exe, Env: env}
}
