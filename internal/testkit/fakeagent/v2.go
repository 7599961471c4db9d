package fakeagent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Protocol-version and sign-in behaviours.
const (
	// V2 answers in ACP v2's shape (protocolVersion 2, info,
	// capabilities, methods by methodId with a type): an agent method
	// "oauth" that auth/login signs in, and a terminal method "tui". It
	// then answers auth/login, auth/logout and session/new.
	V2 = "v2"
	// V2Untyped is V2 with a method that says no type.
	V2Untyped = "v2-untyped"
	// V3 answers protocolVersion 3, which no client speaks.
	V3 = "v3"
	// LegacyLogin offers only the older _meta["terminal-auth"] sign-in:
	// no type, no args, a command of its own (this binary in login mode).
	LegacyLogin = "legacy-login"
	// LegacyAndStandard offers one terminal method with both the
	// standard args/env and the older _meta command.
	LegacyAndStandard = "legacy-and-standard"
	// Shim is an npm package whose first run installs a launcher
	// ($HOME/.local/bin/fake-shim, this binary) and fails asking for a
	// reinstall, as Junie's does; run as that launcher it is Valid.
	Shim = "shim"
)

// TerminalIfOptedIn follows the stabilized terminal auth to the letter:
// it offers its terminal method only to a client that set
// clientCapabilities.auth.terminal, and nothing else.
const TerminalIfOptedIn = "terminal-if-opted-in"

// optedInMethods are TerminalIfOptedIn's auth methods for the params of
// an initialize request.
func optedInMethods(params json.RawMessage) string {
	var p struct {
		ClientCapabilities struct {
			Auth struct {
				Terminal bool `json:"terminal"`
			} `json:"auth"`
		} `json:"clientCapabilities"`
	}
	if json.Unmarshal(params, &p) == nil && p.ClientCapabilities.Auth.Terminal {
		return `[{"id":"tui","name":"Terminal login","type":"terminal","args":["--fake-login"]}]`
	}
	return `[]`
}

// ShimName is the launcher Shim installs.
const ShimName = "fake-shim"

// runShim is Shim's first run; it returns the behaviour to go on with
// when run as the launcher.
func runShim(mode string) string {
	if mode != Shim {
		return mode
	}
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == ShimName {
		return Valid
	}
	bin := filepath.Join(os.Getenv("HOME"), ".local", "bin")
	exe, err := os.Executable()
	if err == nil {
		err = os.MkdirAll(bin, 0o700)
	}
	if err == nil {
		// Windows runs no link to an .exe by another name: a copy.
		if runtime.GOOS == "windows" {
			err = copyFile(exe, filepath.Join(bin, ShimName+".exe"))
		} else {
			err = os.Symlink(exe, filepath.Join(bin, ShimName))
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake agent: shim:", err)
	}
	fmt.Fprintln(os.Stderr, "Error: fake-shim shim not found. Please reinstall: npm install -g @example/fake-shim")
	os.Exit(1)
	return ""
}

// v2Methods are the V2 behaviour's auth methods.
const v2Methods = `[{"methodId":"oauth","name":"Sign in with the browser","type":"agent"},` +
	`{"methodId":"tui","name":"Terminal login","type":"terminal","args":["--fake-login"],"env":[{"name":"FAKE_METHOD_ENV","value":"from-method"}]}]`

// answerV2 is an initialize result in v2's shape.
func answerV2(id, methods string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":2,` +
		`"info":{"name":"fake-agent-v2","version":"2.0.0"},` +
		`"capabilities":{"loadSession":true,"sessionCapabilities":{"list":{},"close":{},"fork":{}},"auth":{"logout":{}}},` +
		`"authMethods":` + methods + `}}`
}

// standardFields make a legacy method one in the standard form as well.
const standardFields = `"type":"terminal","args":["--fake-login","standard"],"env":{"FAKE_METHOD_ENV":"standard"},`

// legacyMethod is a method in the _meta["terminal-auth"] form whose
// command is this binary in login mode, with extra fields ("" or
// standardFields).
func legacyMethod(extra string) string {
	exe, _ := os.Executable()
	cmd, _ := json.Marshal(exe)
	return `[{"id":"cli-login","name":"Log in with the CLI",` + extra +
		`"_meta":{"terminal-auth":{"command":` + string(cmd) + `,"args":["--fake-login","legacy"],"env":{"FAKE_LEGACY":"1"},"label":"fake-cli login"}}}]`
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o700)
}

// emitVersioned writes the answer of the behaviours above; false for any
// other.
func emitVersioned(mode, id string, emit func(string)) bool {
	switch mode {
	case V2:
		emit(answerV2(id, v2Methods))
	case V2Untyped:
		emit(answerV2(id, `[{"methodId":"oauth","name":"Sign in"}]`))
	case V3:
		emit(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":3,"agentInfo":{"name":"fake-agent","version":"3.0.0"},"authMethods":[{"id":"oauth","name":"Sign in","type":"agent"}]}}`)
	case LegacyLogin:
		emit(answer(id, legacyMethod("")))
	case LegacyAndStandard:
		emit(answer(id, legacyMethod(standardFields)))
	default:
		return false
	}
	return true
}

// serveV2 answers auth/login (only for the agent method "oauth"; it says
// so on stderr and, with ACP_FAKE_RECORD set, in that path + ".login"), auth/logout and session/new until stdin closes.
func serveV2(mode string, in *bufio.Reader, emit func(string)) bool {
	if mode != V2 {
		return false
	}
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			os.Exit(0)
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				MethodID string `json:"methodId"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || len(req.ID) == 0 {
			continue
		}
		id := string(req.ID)
		switch {
		case req.Method == "auth/login" && req.Params.MethodID == "oauth":
			fmt.Fprintln(os.Stderr, "fake agent: auth/login oauth")
			if rec := os.Getenv("ACP_FAKE_RECORD"); rec != "" {
				// The sign-in's own record, beside the launch's.
				if err := os.WriteFile(rec+".login", []byte(req.Params.MethodID), 0o600); err != nil {
					fmt.Fprintln(os.Stderr, "fake agent: record:", err)
				}
			}
			emit(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
		case req.Method == "auth/login":
			msg, _ := json.Marshal("no such login method: " + req.Params.MethodID)
			emit(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":` + string(msg) + `}}`)
		case req.Method == "auth/logout":
			emit(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
		case req.Method == "session/new":
			emit(`{"jsonrpc":"2.0","id":` + id + `,"result":{"sessionId":"v2-session"}}`)
		default:
			emit(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"Method not found"}}`)
		}
	}
}
