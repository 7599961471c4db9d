// Package launch starts an agent process the way a careful client should:
// contained (a session of its own without a controlling terminal; on Linux
// under a supervisor that removes every process the agent starts, and a
// private PID namespace and /proc where user namespaces are allowed; on
// Windows a job object), with a fresh HOME and TMPDIR (and APPDATA and
// LOCALAPPDATA on Windows) inside a sandbox folder, TERM=dumb, and an
// environment built from a short allow-list of host variables plus the
// manifest's own env. The user's tokens (OPENAI_API_KEY, GITHUB_TOKEN, …)
// never reach an agent under verification. Stop removes the agent's whole
// tree and always waits, so no zombie and no daemon is left behind.
package launch
