package main

import (
	"net/url"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/agentclientprotocol/acp-registry-go/internal/cli"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/validate"
)

// netFlags are the network switches validate, build and update share, so
// their names, defaults and help read the same everywhere.
type netFlags struct {
	skipURLs         bool
	allowPrivateURLs bool
	npmRegistry      string
	pypiURL          string
}

// register adds the flags of a command that checks URLs, --skip-urls
// among them.
func (n *netFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&n.skipURLs, "skip-urls", false, "skip network checks (also SKIP_URL_VALIDATION=1|true|yes)")
	n.registerLookups(fl)
}

// registerLookups adds the flags but --skip-urls, for update: it has
// nothing to skip, looking things up is its job.
func (n *netFlags) registerLookups(fl *pflag.FlagSet) {
	fl.BoolVar(&n.allowPrivateURLs, "allow-private-urls", false, "allow URLs on loopback and private networks (tests, private mirrors)")
	fl.StringVar(&n.npmRegistry, "npm-registry", remote.DefaultNPMRegistry, "npm registry for npx packages")
	fl.StringVar(&n.pypiURL, "pypi-url", remote.DefaultPyPIURL, "PyPI for uvx packages")
}

// check refuses registry URLs that could never be fetched, before any
// lookup turns them into one "unreachable" problem per package.
func (n *netFlags) check() error {
	for _, f := range []struct{ name, value string }{{"--npm-registry", n.npmRegistry}, {"--pypi-url", n.pypiURL}} {
		u, err := url.Parse(f.value)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return cli.Usagef("%s %q is not an http(s) URL: write the base URL, e.g. https://registry.example.com/", f.name, f.value)
		}
	}
	return nil
}

// validateOptions fills the network part of validate.Options.
func (n *netFlags) validateOptions() validate.Options {
	return validate.Options{
		SkipURLs:         n.skipURLs || envTrue(os.Getenv("SKIP_URL_VALIDATION")),
		AllowPrivateURLs: n.allowPrivateURLs,
		NPMRegistry:      n.npmRegistry,
		PyPIURL:          n.pypiURL,
	}
}

// envTrue reads boolean environment switches such as SKIP_URL_VALIDATION.
func envTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes":
		return true
	}
	return false
}

// splitIDs trims the values of a repeated/comma-separated --agent flag.
func splitIDs(ids []string) []string {
	var out []string
	for _, a := range ids {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}
