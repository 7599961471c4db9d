// Package agents is this repository's own registry: one folder per agent
// (agent.json and icon.svg, written and checked by us), in the layout
// acp-registry validates and builds. The files are embedded in the
// binaries as FS, the registry acp falls back to when it can reach neither
// the network nor a cached index.
package agents
