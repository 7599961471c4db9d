// Package launch starts an agent process the way a careful client should:
// in its own process group (so the whole tree can be killed), with a fresh
// HOME and TMPDIR inside a sandbox folder, TERM=dumb, and an environment
// built from a short allow-list of host variables plus the manifest's own
// env. The user's tokens (OPENAI_API_KEY, GITHUB_TOKEN, …) never reach an
// agent under verification. Stop kills the group and always waits, so no
// zombies are left behind.
package launch
