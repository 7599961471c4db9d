package registry

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// The public registry's scripts drop, from every agent they launch,
// the variables of the runner, the host and its credentials that a
// manifest's env might set (registry_utils.py: its reserved names and
// prefixes). acp, verify and matrix drop the same set, so an agent gets
// from a manifest what it gets from the public registry's CI, and a
// GITHUB_TOKEN or an AWS_ key never reaches it through a manifest.
// Upper case; names compare case-insensitively. Built on first use, as
// reservedEnv is.
var droppedEnvNames = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": true, "ACTIONS_ID_TOKEN_REQUEST_URL": true, "CI": true, "COMSPEC": true,
		"DYLD_INSERT_LIBRARIES": true, "GITHUB_ACTION": true, "GITHUB_ACTIONS": true, "GITHUB_ACTOR": true,
		"GITHUB_API_URL": true, "GITHUB_ENV": true, "GITHUB_EVENT_NAME": true, "GITHUB_EVENT_PATH": true,
		"GITHUB_GRAPHQL_URL": true, "GITHUB_JOB": true, "GITHUB_OUTPUT": true, "GITHUB_PATH": true, "GITHUB_REF": true,
		"GITHUB_REPOSITORY": true, "GITHUB_RUN_ID": true, "GITHUB_SERVER_URL": true, "GITHUB_SHA": true,
		"GITHUB_STEP_SUMMARY": true, "GITHUB_TOKEN": true, "GITHUB_WORKFLOW": true, "GITHUB_WORKSPACE": true,
		"HOME": true, "LD_PRELOAD": true, "NODE_EXTRA_CA_CERTS": true, "NODE_OPTIONS": true, "NPM_CONFIG_CACHE": true,
		"NPM_CONFIG_USERCONFIG": true, "NPM_TOKEN": true, "PATH": true, "PATHEXT": true, "PIP_INDEX_URL": true,
		"PIP_TRUSTED_HOST": true, "PYTHONHOME": true, "PYTHONPATH": true, "REQUESTS_CA_BUNDLE": true, "RUNNER_TEMP": true,
		"RUNNER_TOOL_CACHE": true, "RUNNER_WORKSPACE": true, "SSL_CERT_DIR": true, "SSL_CERT_FILE": true,
		"SYSTEMROOT": true, "TEMP": true, "TMP": true, "TMPDIR": true, "UV_CACHE_DIR": true, "UV_INDEX_URL": true,
		"WINDIR": true, "XDG_CACHE_HOME": true, "XDG_CONFIG_HOME": true,
	}
})

var droppedEnvPrefixes = []string{"ACTIONS_", "AWS_", "AZURE_", "DYLD_", "GCLOUD_", "GITHUB_", "GOOGLE_", "LD_",
	"NODE_", "NPM_", "PIP_", "PYTHON_", "RUNNER_", "SSH_", "UV_", "XDG_"}

// DroppedEnv reports whether a manifest's variable is left out of every
// agent launch, as the public registry leaves it out.
func DroppedEnv(name string) bool {
	u := strings.ToUpper(strings.TrimSpace(name))
	if droppedEnvNames()[u] {
		return true
	}
	for _, p := range droppedEnvPrefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// DroppedEnvMessage says why name is not passed to the agent.
func DroppedEnvMessage(name string) string {
	if c := reservedClass(name); c != nil {
		return fmt.Sprintf("env %s is not passed to the agent: it is a %s, which no launch passes (acp-registry validate refuses it: env-reserved)", name, c.name)
	}
	return fmt.Sprintf("env %s is not passed to the agent: it names the runner, the host or their credentials, which the public registry drops from every launch (and so do acp, verify and matrix)", name)
}

// notLaunched: a launch leaves name out, reserved (ReservedEnv) or
// dropped (DroppedEnv). Reserved names are refused when a registry is
// loaded, but a launch cannot count on that: verify and matrix read a
// pull request's folders, and an install may predate a name's reserving.
func notLaunched(name string) bool { return DroppedEnv(name) || ReservedEnv(name) }

// LaunchEnv is a manifest's env as an agent is launched with it: without
// the variables DroppedEnv or ReservedEnv names, whatever registry the
// manifest came from. warnings say, sorted, which were dropped (agent
// names the agent in them); env is returned as it is when nothing is
// dropped.
func LaunchEnv(agent string, env map[string]string) (kept map[string]string, warnings []string) {
	for k := range env {
		if notLaunched(k) {
			warnings = append(warnings, fmt.Sprintf("%s: %s", agent, DroppedEnvMessage(k)))
		}
	}
	if len(warnings) == 0 {
		return env, nil
	}
	sort.Strings(warnings)
	kept = make(map[string]string, len(env))
	for k, v := range env {
		if !notLaunched(k) {
			kept[k] = v
		}
	}
	return kept, warnings
}
