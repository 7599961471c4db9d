// Package probe starts one agent and talks to it the way an editor would:
// the initialize handshake in a throw-away sandbox (package launch for the
// process, package acpclient for the protocol), the verdict on the auth
// methods it offers, and the launch spec of a terminal login. It is the
// editor's wing: `acp probe` and `acp login` use it directly, and the
// maintainer's verify and matrix build on it.
package probe
