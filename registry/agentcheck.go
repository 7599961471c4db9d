package registry

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// envClass is a kind of variable a manifest may not set, and why.
type envClass struct {
	name string // as docs/rules.md heads its list
	why  string // completes "env sets NAME, …"
}

var (
	envLauncher = &envClass{"launcher or host setting", "which would hijack the launcher or the host"}
	envNetwork  = &envClass{"network or trust setting", "which would redirect the agent's connections or the certificates it trusts"}
	envPackages = &envClass{"package source", "a package source: npm, uv or pip would install from elsewhere"}
	envLoader   = &envClass{"loader or interpreter hook", "a loader or interpreter hook: programs and interpreters the agent starts would load code it names"}
	envGit      = &envClass{"git or go hook or repository override", "a git or go hook or repository override: git or go, run by the agent, would run a command it names or work on another repository"}
	envShell    = &envClass{"shell function export or startup hook", "a shell function export or startup hook: a shell the agent starts would run code it holds (BASH_FUNC_git%% replaces git)"}
	envKeyLog   = &envClass{"TLS key log", "a TLS key log: the keys of the agent's TLS connections would be written to a file, and its traffic read"}
	envPager    = &envClass{"pager, editor or preprocessor hook", "a pager, editor or preprocessor hook: a tool the agent runs would start the command it names to show or edit a file"}
)

// reservedEnv are the variables a manifest may not set, by class: they
// would let a manifest (or a mirror's index, which no review saw) take
// over the launcher, the host's folders and network, or make the tools an
// agent runs (git, go, npm, uv, pip, bash, less, perl, python, ruby, java,
// the dynamic loader) run code or commands of its choosing. Upper case;
// names compare case-insensitively because Windows does. validate refuses
// them (env-reserved), acp refuses an agent that sets one when it loads a
// registry, and every launch (acp, verify, matrix) leaves them out.
// Built on first use: a start that checks no variable (acp resolve of an
// agent without env) does not build it.
var reservedEnv = sync.OnceValue(func() map[string]*envClass {
	return map[string]*envClass{
		"PATH": envLauncher, "PATHEXT": envLauncher, "COMSPEC": envLauncher, "SYSTEMROOT": envLauncher,
		"HOME": envLauncher, "USERPROFILE": envLauncher, "APPDATA": envLauncher, "LOCALAPPDATA": envLauncher,

		"HTTP_PROXY": envNetwork, "HTTPS_PROXY": envNetwork, "ALL_PROXY": envNetwork, "NO_PROXY": envNetwork,
		"FTP_PROXY": envNetwork, "SSL_CERT_FILE": envNetwork, "SSL_CERT_DIR": envNetwork, "NODE_EXTRA_CA_CERTS": envNetwork,
		"REQUESTS_CA_BUNDLE": envNetwork, "CURL_CA_BUNDLE": envNetwork, "NODE_TLS_REJECT_UNAUTHORIZED": envNetwork,

		"UV_INDEX_URL": envPackages, "UV_INDEX": envPackages, "UV_EXTRA_INDEX_URL": envPackages, "UV_DEFAULT_INDEX": envPackages,
		"PIP_INDEX_URL": envPackages, "PIP_EXTRA_INDEX_URL": envPackages, "PIP_CONFIG_FILE": envPackages,
		"GOPROXY": envPackages, "GOSUMDB": envPackages, "GONOSUMDB": envPackages, "GOINSECURE": envPackages,

		// Each loads code named by the variable into the program started:
		// glibc's gconv modules, OpenSSL's config (engines) and providers,
		// Node's --require, Python's startup file and paths, Perl's -M and
		// debugger, Ruby's -r, the JVM's -javaagent.
		"NODE_OPTIONS": envLoader, "NODE_PATH": envLoader, "PYTHONPATH": envLoader, "PYTHONHOME": envLoader,
		"PYTHONSTARTUP": envLoader, "PERL5OPT": envLoader, "PERL5LIB": envLoader, "PERLLIB": envLoader, "PERL5DB": envLoader,
		"RUBYOPT": envLoader, "RUBYLIB": envLoader, "JAVA_TOOL_OPTIONS": envLoader, "_JAVA_OPTIONS": envLoader,
		"JDK_JAVA_OPTIONS": envLoader, "GCONV_PATH": envLoader, "OPENSSL_CONF": envLoader, "OPENSSL_MODULES": envLoader,
		"OPENSSL_ENGINES": envLoader,

		// git runs GIT_EXTERNAL_DIFF on every git diff, the ssh and askpass
		// commands on every fetch; GIT_DIR and its kin point git at another
		// repository, whose config (core.fsmonitor) runs on git status.
		// GOFLAGS=-toolexec=… runs a command around every compiler step;
		// GOENV names a file of such settings; GOTOOLCHAIN downloads and runs
		// another go.
		"GIT_EXTERNAL_DIFF": envGit, "GIT_DIR": envGit, "GIT_WORK_TREE": envGit, "GIT_COMMON_DIR": envGit,
		"GIT_INDEX_FILE": envGit, "GIT_OBJECT_DIRECTORY": envGit, "GIT_ALTERNATE_OBJECT_DIRECTORIES": envGit,
		"GIT_SSH": envGit, "GIT_SSH_COMMAND": envGit, "GIT_ASKPASS": envGit, "SSH_ASKPASS": envGit,
		"GIT_PROXY_COMMAND": envGit, "GIT_EXEC_PATH": envGit, "GIT_TEMPLATE_DIR": envGit,
		"GOFLAGS": envGit, "GOENV": envGit, "GOTOOLCHAIN": envGit,

		// bash reads BASH_ENV (sh: ENV) before a script; SHELLOPTS and
		// BASHOPTS switch on xtrace, which expands PS4 (with its $(…)) before
		// every command.
		"BASH_ENV": envShell, "ENV": envShell, "SHELLOPTS": envShell, "BASHOPTS": envShell, "PS4": envShell,
		"PROMPT_COMMAND": envShell,

		"SSLKEYLOGFILE": envKeyLog,

		"PAGER": envPager, "GIT_PAGER": envPager, "MANPAGER": envPager, "LESSOPEN": envPager, "LESSCLOSE": envPager,
		"EDITOR": envPager, "VISUAL": envPager, "GIT_EDITOR": envPager, "GIT_SEQUENCE_EDITOR": envPager,
	}
})

// reservedPrefixes: every variable that starts so is reserved: the
// loaders' (LD_PRELOAD, LD_AUDIT, DYLD_INSERT_LIBRARIES), git's config
// from the environment (GIT_CONFIG_COUNT/KEY_n/VALUE_n set
// core.fsmonitor or diff.external), npm's whole config, and bash's
// exported functions (BASH_FUNC_git%% is a function named git that
// every bash script the agent runs calls instead of git).
var reservedPrefixes = []struct {
	prefix string
	class  *envClass
}{{"LD_", envLoader}, {"DYLD_", envLoader}, {"GIT_CONFIG", envGit}, {"NPM_CONFIG_", envPackages}, {"BASH_FUNC_", envShell}}

// reservedClass is the class of a reserved name, nil when it is not.
func reservedClass(name string) *envClass {
	u := strings.ToUpper(name)
	if c := reservedEnv()[u]; c != nil {
		return c
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(u, p.prefix) {
			return p.class
		}
	}
	return nil
}

// ReservedEnv reports whether a manifest may not set the variable name
// (registry-rules.md, env-reserved). validate reports it; acp refuses an
// agent that sets one, whatever registry it came from; and no launch
// passes it (LaunchEnv).
func ReservedEnv(name string) bool { return reservedClass(name) != nil }

// ReservedEnvMessage is the env-reserved rule's message for name: what
// it is and why it may not be set.
func ReservedEnvMessage(name string) string {
	why := "which would hijack the launcher or the host"
	if c := reservedClass(name); c != nil {
		why = c.why
	}
	return fmt.Sprintf("env sets %s, %s: remove it", name, why)
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
