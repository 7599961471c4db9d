package registry

import (
	"fmt"
	"sort"
	"strings"
)

// reservedEnv are variables a manifest may not set: they would let an
// agent's manifest redirect the launcher (PATH, PATHEXT, ComSpec, loader
// and interpreter hooks), the user's home and profile folders, or the
// network and its trust roots. Upper case; names compare
// case-insensitively because Windows does.
var reservedEnv = map[string]bool{
	"PATH": true, "HOME": true, "NODE_OPTIONS": true, "NODE_PATH": true, "PYTHONPATH": true, "PYTHONHOME": true,
	"PYTHONSTARTUP": true, "HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "NO_PROXY": true,
	"FTP_PROXY": true, "SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "NODE_EXTRA_CA_CERTS": true,
	"REQUESTS_CA_BUNDLE": true, "CURL_CA_BUNDLE": true, "NODE_TLS_REJECT_UNAUTHORIZED": true,
	"COMSPEC": true, "SYSTEMROOT": true, "USERPROFILE": true, "APPDATA": true, "LOCALAPPDATA": true,
	"PATHEXT": true,
	// Hooks of the tools an agent runs: each runs a command, or fetches
	// packages or config from elsewhere, for the agent's own git, npm,
	// npx, uv, pip, bash and OpenSSL.
	"BASH_ENV": true, "OPENSSL_CONF": true, "GIT_SSH": true, "GIT_SSH_COMMAND": true,
	"GIT_EXEC_PATH": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "GIT_PROXY_COMMAND": true,
	"GIT_TEMPLATE_DIR": true, "UV_INDEX_URL": true, "UV_INDEX": true, "UV_EXTRA_INDEX_URL": true,
	"UV_DEFAULT_INDEX": true, "PIP_INDEX_URL": true, "PIP_EXTRA_INDEX_URL": true, "PIP_CONFIG_FILE": true,
}

// reservedPrefixes: every variable that starts so is reserved (git's
// config from the environment, npm's whole config).
var reservedPrefixes = []string{"LD_", "DYLD_", "GIT_CONFIG", "NPM_CONFIG_"}

// ReservedEnv reports whether a manifest may not set the variable name
// (registry-rules.md, env-reserved). validate reports it; acp refuses an
// agent that sets one, whatever registry it came from.
func ReservedEnv(name string) bool {
	u := strings.ToUpper(name)
	if reservedEnv[u] {
		return true
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// ReservedEnvMessage is the env-reserved rule's message for name.
func ReservedEnvMessage(name string) string {
	return fmt.Sprintf("env sets %s, which would hijack the launcher or the host: remove it", name)
}

// CheckAgent applies the rules that keep a hostile registry from reaching
// the host through acp: every package spec is exactly a registry name and
// a version (package-name), and no distribution sets a reserved variable
// (env-reserved). Registries that never went through validate (mirrors,
// folders, files) are held to them when loaded.
func CheckAgent(m *Manifest) error {
	check := func(where string, d Distribution) error {
		for _, p := range SortedPlatforms(d.Binary) {
			if err := checkEnv(where+"binary/"+string(p)+"/env", d.Binary[p].Env); err != nil {
				return err
			}
		}
		for _, k := range []Kind{KindNpx, KindUvx} {
			p := d.PackageFor(k)
			if p == nil {
				continue
			}
			if _, err := ParsePackage(k, p.Package); err != nil {
				return fmt.Errorf("%s%s/package: %w (rule package-name)", where, k, err)
			}
			if err := checkEnv(where+string(k)+"/env", p.Env); err != nil {
				return err
			}
		}
		return nil
	}
	if err := check("distribution/", m.Distribution); err != nil {
		return err
	}
	if m.Preview != nil {
		return check("preview/distribution/", m.Preview.Distribution)
	}
	return nil
}

func checkEnv(where string, env map[string]string) error {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		// "PATH=/x" is no name: launched, it sets PATH, past every rule
		// about PATH; NUL ends the name early.
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("%s: env name %q is not one variable (it is empty or holds \"=\" or NUL, and would set another): use a name of letters, digits and _ (rule schema)", where, k)
		}
		if ReservedEnv(k) {
			return fmt.Errorf("%s: %s (rule env-reserved)", where, ReservedEnvMessage(k))
		}
	}
	return nil
}
