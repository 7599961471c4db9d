// Package fakeagent is a tiny ACP agent for tests: the test binary runs it
// when re-executed with ACP_FAKE_AGENT set (the helper-process pattern), so
// launch, handshake, probe and login tests use a real child process on real
// pipes. The behaviour is chosen by environment variables:
//
//	ACP_FAKE_AGENT   behaviour (the constants of this package)
//	ACP_FAKE_DELAY   wait this long (a Go duration) before answering
//	ACP_FAKE_RECORD  write {"args":[...],"env":[...]} of this process to this file
//	ACP_FAKE_FDS     write {"fd":"what it is",...} of this process's open descriptors to this file
//	ACP_FAKE_EXIT    exit status in login mode (default 0)
//	ACP_FAKE_INIT_RECORD  write the params of the initialize request to this file
//
// An argument "--fake-login" anywhere on the command line selects login
// mode regardless of ACP_FAKE_AGENT: record, then exit with ACP_FAKE_EXIT.
//
// Use it from a test package:
//
//	func TestMain(m *testing.M) {
//		if os.Getenv("ACP_FAKE_AGENT") != "" {
//			fakeagent.Main()
//		}
//		os.Exit(m.Run())
//	}
package fakeagent
