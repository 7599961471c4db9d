// Package verify owns the registry's auth check: for each agent and each
// distribution that can run here, install it into a sandbox, launch it
// (package launch), perform the ACP initialize handshake (package
// acpclient) and judge the auth methods it advertises, as
// registry-rules.md "Auth check" describes. It also holds the quarantine
// list (quarantine.json) and the protocol matrix built from the same
// handshakes. It does not install anything itself: the caller injects an
// InstallFunc (the installer in production, a fake agent in tests).
package verify
