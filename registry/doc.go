// Package registry owns the ACP registry's data model: the agent manifest
// (agent.json), the aggregated index (registry.json), the platform targets,
// npm and PyPI package specs, and version ordering. It reads registry trees
// (one folder per agent) but never judges them: rules live in validate.
package registry
