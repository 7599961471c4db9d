package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/testkit"
)

func TestParseNPM(t *testing.T) {
	cases := []struct {
		spec, name, version string
		bad                 bool
	}{
		{"@agentclientprotocol/claude-agent-acp@0.85.1", "@agentclientprotocol/claude-agent-acp", "0.85.1", false},
		{"9router@0.5.96", "9router", "0.5.96", false},
		{"gptme-acp", "gptme-acp", "", false},
		{"@stdiobus/workers-registry", "@stdiobus/workers-registry", "", false},
		{"aider-acp@latest", "aider-acp", "latest", false},
		{"cline@", "", "", true},
		{"x@npm:y@1.0.0", "", "", true},
		{"x@file:../y", "", "", true},
		{"x@git+https://github.com/a/b", "", "", true},
		{"x@https://evil.example/x.tgz", "", "", true},
		{"x@next", "", "", true},
		{"--global", "", "", true},
		{"-g", "", "", true},
		{"x@1.0.0 --global", "", "", true},
		{"x@1.0.0\n--global", "", "", true},
		{"x@1.0.0\t", "", "", true},
		{"pkg@1.2", "pkg", "1.2", false},
		{"pkg@^1.2.0", "pkg", "^1.2.0", false},
		{"pkg@v1.2.3", "pkg", "v1.2.3", false},
		{"Bad_Name@1.0.0", "", "", true},
		{"@scope@1.0.0", "", "", true},
		{"", "", "", true},
	}
	for _, c := range cases {
		s, err := ParseNPM(c.spec)
		if c.bad {
			if err == nil {
				t.Errorf("ParseNPM(%q) = %+v, want error", c.spec, s)
			}
			continue
		}
		if err != nil || s.Name != c.name || s.Version != c.version {
			t.Errorf("ParseNPM(%q) = %+v, %v; want %s %s", c.spec, s, err, c.name, c.version)
		}
		if s.String() != c.spec {
			t.Errorf("ParseNPM(%q).String() = %q", c.spec, s.String())
		}
	}
}

func TestParsePyPI(t *testing.T) {
	cases := []struct {
		spec, name, extras, version string
		bad                         bool
	}{
		{"fast-agent-acp==0.10.1", "fast-agent-acp", "", "0.10.1", false},
		{"aither-adk==3.0.3", "aither-adk", "", "3.0.3", false},
		{"gptme-acp", "gptme-acp", "", "", false},
		{"mistral-vibe[acp]==1.2.0", "mistral-vibe", "[acp]", "1.2.0", false},
		{"superqode@0.2.7", "superqode", "", "0.2.7", false},
		{"pkg==", "", "", "", true},
		{"-pkg==1.0", "", "", "", true},
		{"pkg[==1.0", "", "", "", true},
		{"pkg @ https://evil.example/pkg.whl", "", "", "", true},
		{"pkg@https://evil.example/pkg.whl", "", "", "", true},
		{"pkg@file:///tmp/x", "", "", "", true},
		{"pkg==1.0\n--index-url=https://evil.example", "", "", "", true},
		{"--with=evil", "", "", "", true},
		{"git+https://github.com/a/b", "", "", "", true},
		{"pkg==1.0 ", "", "", "", true},
	}
	for _, c := range cases {
		s, err := ParsePyPI(c.spec)
		if c.bad {
			if err == nil {
				t.Errorf("ParsePyPI(%q) = %+v, want error", c.spec, s)
			}
			continue
		}
		if err != nil || s.Name != c.name || s.Extras != c.extras || s.Version != c.version {
			t.Errorf("ParsePyPI(%q) = %+v, %v", c.spec, s, err)
		}
	}
	for spec, rng := range map[string]string{"pkg>=1.0.0": ">=1.0.0", "pkg~=1.2": "~=1.2", "pkg==1.*": "==1.*", "pkg[x]>=1,<2": ">=1,<2"} {
		s, err := ParsePyPI(spec)
		if err != nil || s.Range != rng || s.Version != "" || s.String() != spec {
			t.Errorf("ParsePyPI(%q) = %+v, %v; want the range %q and no version", spec, s, err, rng)
		}
	}
	if got := NormalizePyPIName("Fast_Agent..ACP"); got != "fast-agent-acp" {
		t.Errorf("NormalizePyPIName = %q", got)
	}
}

func TestExactNPMVersion(t *testing.T) {
	for v, want := range map[string]bool{"1.2.3": true, "v1.2.3": true, "1.2.3-preview.4": true, "1.2.3+b.1": true,
		"1.2": false, "^1.2.0": false, "~1.2.3": false, ">=1.0.0": false, "1.x": false, "1.2.3.4": false, "latest": false, "1.2.3-": false} {
		if got := ExactNPMVersion(v); got != want {
			t.Errorf("ExactNPMVersion(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestReservedEnv(t *testing.T) {
	for _, name := range []string{"PATH", "path", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "NODE_OPTIONS", "PYTHONPATH", "https_proxy",
		"SSL_CERT_FILE", "ComSpec", "SystemRoot", "USERPROFILE", "AppData", "LOCALAPPDATA", "PathExt"} {
		if !ReservedEnv(name) {
			t.Errorf("ReservedEnv(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"GEMINI_API_KEY", "DEBUG", "PATHS_DIR"} {
		if ReservedEnv(name) {
			t.Errorf("ReservedEnv(%q) = true, want false", name)
		}
	}
}

func TestVersions(t *testing.T) {
	if !StrictVersion("1.2.3") || StrictVersion("1.2") || StrictVersion("1.18.31.1") || StrictVersion("1.2.3-beta.1") || StrictVersion("v1.2.3") {
		t.Error("StrictVersion accepts or rejects the wrong forms")
	}
	if !HasLeadingZero("2026.10.01") || HasLeadingZero("2026.10.10") || HasLeadingZero("0.1.0") {
		t.Error("HasLeadingZero is wrong")
	}
	for _, c := range [][2]string{{"1.2", "1.2.0"}, {"v1.2.3", "1.2.3"}, {"2026.10.01", "2026.10.1"}, {"1", "1.0.0"}, {"1.2.3-preview.1", "1.2.3-preview.1"}} {
		if !SameVersion(c[0], c[1]) || !SameVersion(c[1], c[0]) {
			t.Errorf("SameVersion(%q, %q) = false", c[0], c[1])
		}
	}
	for _, c := range [][2]string{{"1.2.1", "1.2.0"}, {"1.2.3-preview.1", "1.2.3"}, {"1.2.3", "1.2.3.4"}, {"1.10.0", "1.1.0"}, {"x", "1.0.0"}} {
		if SameVersion(c[0], c[1]) || SameVersion(c[1], c[0]) {
			t.Errorf("SameVersion(%q, %q) = true", c[0], c[1])
		}
	}
	if !SameVersion("1.2", "1.2.0") || SameVersion("1.2.1", "1.2.0") {
		t.Error("SameVersion should compare semantically")
	}
	if !Newer("0.85.2-preview.22", "0.85.1") || Newer("0.85.1", "0.85.2-preview.22") || Newer("1.10.0", "1.10.0") || !Newer("1.10.0", "1.9.9") {
		t.Error("Newer does not follow semver precedence")
	}
	if Newer("garbage", "1.0.0") {
		t.Error("an unparsable version must never be newer")
	}
}

func TestSlugAndIDs(t *testing.T) {
	for name, want := range map[string]string{"Claude Agent": "claude-agent", "Gemini CLI": "gemini-cli", "  goose!! ": "goose", "Qwen  Code": "qwen-code"} {
		if got := Slug(name); got != want {
			t.Errorf("Slug(%q) = %q, want %q", name, got, want)
		}
	}
	if !ValidID("claude-agent") || ValidID("Claude") || ValidID("1agent") || ValidID("") {
		t.Error("ValidID is wrong")
	}
}

func TestPlatforms(t *testing.T) {
	p, err := ParsePlatform("darwin-aarch64")
	if err != nil || p.OS() != "darwin" || p.Arch() != "aarch64" {
		t.Fatalf("ParsePlatform: %v %v", p, err)
	}
	_, err = ParsePlatform("linux-arm64")
	if err == nil || !strings.Contains(err.Error(), "linux-aarch64") {
		t.Fatalf("unknown platform error should list the known ones, got %v", err)
	}
}

func TestParseIndexRefusesHostileInput(t *testing.T) {
	good := `{"version":"1.0.0","agents":[{"id":"a","name":"A","version":"1.0.0","description":"d","distribution":{"npx":{"package":"a@1.0.0"}}}]}`
	x, err := ParseIndex([]byte(good))
	if err != nil || len(x.Agents) != 1 || x.Extensions == nil {
		t.Fatalf("ParseIndex(good) = %+v, %v", x, err)
	}
	for name, body := range map[string]string{
		"not json":      `<html>`,
		"no agents":     `{"version":"1.0.0"}`,
		"duplicate id":  `{"version":"1.0.0","agents":[{"id":"a","distribution":{"npx":{"package":"a"}}},{"id":"a","distribution":{"npx":{"package":"a"}}}]}`,
		"bad id":        `{"version":"1.0.0","agents":[{"id":"../etc","distribution":{"npx":{"package":"a"}}}]}`,
		"no dist":       `{"version":"1.0.0","agents":[{"id":"a","distribution":{}}]}`,
		"bad platform":  `{"version":"1.0.0","agents":[{"id":"a","distribution":{"binary":{"beos-m68k":{"archive":"x","cmd":"y"}}}}]}`,
		"wrong types":   `{"version":"1.0.0","agents":[{"id":7}]}`,
		"empty version": `{"agents":[]}`,
		"npm alias":     `{"version":"1.0.0","agents":[{"id":"a","distribution":{"npx":{"package":"a@npm:evil@1.0.0"}}}]}`,
		"npm option":    `{"version":"1.0.0","agents":[{"id":"a","distribution":{"npx":{"package":"--global"}}}]}`,
		"uvx newline":   `{"version":"1.0.0","agents":[{"id":"a","distribution":{"uvx":{"package":"a==1.0\n--index-url=x"}}}]}`,
		"preview alias": `{"version":"1.0.0","agents":[{"id":"a","distribution":{"npx":{"package":"a@1.0.0"}},"preview":{"version":"1.1.0","distribution":{"npx":{"package":"a@file:/tmp"}}}}]}`,
		"env LD":        `{"version":"1.0.0","agents":[{"id":"a","distribution":{"npx":{"package":"a@1.0.0","env":{"LD_PRELOAD":"/tmp/x.so"}}}}]}`,
		"env win":       `{"version":"1.0.0","agents":[{"id":"a","distribution":{"binary":{"windows-x86_64":{"archive":"https://x/a.zip","cmd":"a.exe","env":{"PathExt":".JS"}}}}}]}`,
	} {
		if _, err := ParseIndex([]byte(body)); err == nil {
			t.Errorf("%s: ParseIndex accepted %s", name, body)
		}
	}
}

func TestReadLimited(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(p, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadLimited(p, 1024)
	if _, ok := err.(*TooLargeError); !ok {
		t.Fatalf("ReadLimited over the limit = %v, want *TooLargeError", err)
	}
	if data, err := ReadLimited(p, 4096); err != nil || len(data) != 2048 {
		t.Fatalf("ReadLimited under the limit = %d, %v", len(data), err)
	}
}

// The corpus is real registry data; every manifest in it must decode with
// the types of this package (validity is validate's business).
func TestDecodeCorpusManifests(t *testing.T) {
	dirs, err := ScanRoot(testkit.RequireCorpus(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		data, err := os.ReadFile(d.ManifestPath())
		if err != nil {
			continue
		}
		m, err := DecodeManifest(data)
		if err != nil {
			// aider-acp's authors are objects: a real type error, expected.
			if d.Name == "aider-acp" {
				continue
			}
			t.Errorf("%s: %v", d.Name, err)
			continue
		}
		if len(m.Distribution.Kinds()) == 0 {
			t.Errorf("%s: no distribution decoded", d.Name)
		}
		n++
	}
	if n < 100 {
		t.Errorf("decoded only %d corpus manifests", n)
	}
}

// A refused agent is named with the rule, so the user knows which agent of
// a mirror or folder is at fault and why.
func TestParseIndexNamesTheRule(t *testing.T) {
	_, err := ParseIndex([]byte(`{"version":"1.0.0","agents":[{"id":"a","distribution":{"npx":{"package":"a@1.0.0","env":{"NODE_OPTIONS":"--require /tmp/x.js"}}}}]}`))
	if err == nil || !strings.Contains(err.Error(), `agent "a"`) || !strings.Contains(err.Error(), "env sets NODE_OPTIONS") || !strings.Contains(err.Error(), "env-reserved") {
		t.Fatalf("ParseIndex = %v, want the agent, the variable and the rule named", err)
	}
}

// One hostile or broken agent in a mirror is that agent's loss alone: the
// index loads, the agent is left out with the field and rule named, and
// looking it up says it is refused rather than not there.
func TestParseIndexLeavesOutBadAgentsOnly(t *testing.T) {
	good := `{"id":"good","name":"Good","version":"1.0.0","description":"d","distribution":{"npx":{"package":"good@1.0.0"}}}`
	bad := map[string]string{
		"env-path":   `{"id":"env-path","distribution":{"binary":{"linux-x86_64":{"archive":"https://x/a.tgz","cmd":"a","env":{"PATH":"/tmp"}}}}}`,
		"env-node":   `{"id":"env-node","distribution":{"npx":{"package":"a@1.0.0","env":{"NODE_OPTIONS":"--require /tmp/x.js"}}}}`,
		"env-ld":     `{"id":"env-ld","distribution":{"uvx":{"package":"a==1.0.0","env":{"LD_PRELOAD":"/tmp/x.so"}}}}`,
		"pkg-global": `{"id":"pkg-global","distribution":{"npx":{"package":"--global"}}}`,
		"pkg-alias":  `{"id":"pkg-alias","distribution":{"npx":{"package":"x@npm:other@1.0.0"}}}`,
		"typed":      `{"id":"typed","authors":{"name":"x"},"distribution":{"npx":{"package":"t@1.0.0"}}}`,
		"dup":        `{"id":"dup","distribution":{"npx":{"package":"d@1.0.0"}}}`,
		"Bad_Id":     `{"id":"Bad_Id","distribution":{"npx":{"package":"d@1.0.0"}}}`,
	}
	want := map[string]string{
		"env-path":   "distribution/binary/linux-x86_64/env: env sets PATH",
		"env-node":   "distribution/npx/env: env sets NODE_OPTIONS",
		"env-ld":     "distribution/uvx/env: env sets LD_PRELOAD",
		"pkg-global": "distribution/npx/package: ",
		"pkg-alias":  "distribution/npx/package: ",
		"typed":      "authors must be a list of strings; found an object",
		"dup":        `"dup" appears 2 times`,
		"Bad_Id":     "not a valid agent id",
	}
	agents := []string{good}
	for _, body := range bad {
		agents = append(agents, body)
	}
	agents = append(agents, bad["dup"])
	x, err := ParseIndex([]byte(`{"version":"1.0.0","agents":[` + strings.Join(agents, ",") + `]}`))
	if err != nil {
		t.Fatalf("ParseIndex refused the whole index: %v", err)
	}
	if len(x.Agents) != 1 || x.Agents[0].ID != "good" {
		t.Fatalf("agents = %v, want good alone", x.IDs())
	}
	got := map[string][]string{}
	for _, r := range x.Refused {
		got[r.ID] = append(got[r.ID], r.Reason)
	}
	for id, w := range want {
		rs := got[id]
		if len(rs) == 0 || !strings.Contains(rs[0], w) {
			t.Errorf("%s refused for %q, want %q", id, rs, w)
		}
	}
	for _, id := range []string{"env-path", "env-node", "env-ld"} {
		if !strings.Contains(got[id][0], "(rule env-reserved)") || !strings.Contains(got[id][0], "remove it") {
			t.Errorf("%s: %q names no rule or fix", id, got[id][0])
		}
	}
	_, err = x.Lookup("env-path")
	var re *RefusedError
	if !errors.As(err, &re) || !errors.Is(err, ErrRefused) || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "env sets PATH") {
		t.Fatalf("Lookup(env-path) = %v, want a RefusedError naming the rule", err)
	}
	if _, err := x.Lookup("good"); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeProblemInWords(t *testing.T) {
	for body, want := range map[string]string{
		"{\n  \"id\": \"x\",\n  \"name\": \"X\",,\n}":                          "3:",
		`{"id":"x","authors":{"name":"a"}}`:                                    "1:21: authors must be a list of strings; found an object",
		`{"id":"x","authors":["a",{"name":"a"}]}`:                              "authors must be a list of strings; found an object",
		`{"distribution":{"binary":{"linux-x86_64":{"archive":"a","cmd":7}}}}`: "distribution/binary/cmd must be a string; found a number",
		`{"distribution":{"npx":{"package":"a","env":{"A":1}}}}`:               "distribution/npx/env must be an object of strings; found a number",
		``: "the file is empty",
	} {
		_, err := DecodeManifest([]byte(body))
		if err == nil {
			t.Fatalf("%s decoded", body)
		}
		line, col, msg := DecodeProblem([]byte(body), err)
		got := fmt.Sprintf("%d:%d: %s", line, col, msg)
		if !strings.Contains(got, want) || strings.Contains(got, "Go struct") {
			t.Errorf("DecodeProblem(%s) = %q, want %q", body, got, want)
		}
	}
}

// Each agent of an index costs a decoder, a manifest and, when refused, a
// warning: a 3 MB index of a million "{}" took 640 MB and a million
// warning lines on every command that read the registry. The count is
// capped before any agent is decoded.
func TestParseIndexCapsTheAgents(t *testing.T) {
	good := `{"id":"a","name":"A","version":"1.0.0","description":"d","distribution":{"npx":{"package":"a@1.0.0"}}}`
	body := `{"version":"1.0.0","agents":[` + good + strings.Repeat(`,{}`, 300_000) + `]}`
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ParseIndex([]byte(body))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d agents", MaxIndexAgents)) {
		t.Errorf("err = %v, want the cap named", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 32<<20 {
		t.Errorf("refusing it allocated %d MiB", n>>20)
	}
}

// Variables that make the tools an agent runs (git, npm, npx, uv, pip,
// bash, OpenSSL) run commands or fetch from elsewhere are as reserved as
// PATH: GIT_CONFIG_* sets core.fsmonitor, which every git status runs.
func TestReservedEnvCoversToolHooks(t *testing.T) {
	for _, name := range []string{"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "git_config_value_0", "GIT_CONFIG_PARAMETERS", "GIT_SSH_COMMAND",
		"GIT_ASKPASS", "BASH_ENV", "OPENSSL_CONF", "npm_config_registry", "NPM_CONFIG_USERCONFIG", "UV_INDEX_URL", "UV_DEFAULT_INDEX", "PIP_INDEX_URL"} {
		if !ReservedEnv(name) {
			t.Errorf("%s is not reserved", name)
		}
	}
	for _, name := range []string{"OPENAI_BASE_URL", "FAST_AGENT_MODEL", "GITHUB_USER", "NPM_TOKEN_NAME_HINT"} {
		if ReservedEnv(name) {
			t.Errorf("%s is reserved, but agents set it", name)
		}
	}
}

// npm refuses a version number above 2^53-1 (Number.MAX_SAFE_INTEGER);
// so does acp, everywhere a version is read: such a version is not one
// (never newer, the same only as its own text), and an index's agent
// carrying one is refused as npm would. Below it semver's uint64 order
// is exact.
func TestVersionsAboveSafeIntegersAreRefused(t *testing.T) {
	for _, c := range [][2]string{
		{"18446744073709551617.0.0", "18446744073709551616.0.0"},
		{"9007199254740992.0.0", "2.0.0"},
		{"1.0.0", "0.9007199254740992.0"},
		{"1.0.0-9007199254740992", "1.0.0-1"},
		{"1.0.0", "1.0.0-100000000000000000000"},
	} {
		if Newer(c[0], c[1]) || Newer(c[1], c[0]) {
			t.Errorf("Newer(%q, %q) = %v, Newer(%q, %q) = %v: a version above 2^53-1 is not one", c[0], c[1], Newer(c[0], c[1]), c[1], c[0], Newer(c[1], c[0]))
		}
		if SameVersion(c[0], c[1]) {
			t.Errorf("SameVersion(%q, %q)", c[0], c[1])
		}
	}
	if !Newer("9007199254740991.0.0", "9007199254740990.0.0") || !Newer("1.0.0-9007199254740991", "1.0.0-9007199254740990") {
		t.Error("versions at 2^53-1 do not order")
	}
	if _, err := ParseVersion("1.0.0-9007199254740992"); err == nil || !strings.Contains(err.Error(), "above 9007199254740991") {
		t.Errorf("ParseVersion of a pre-release number 2^53: %v", err)
	}
	if _, err := ParseVersion("9007199254740992.0.0"); err == nil || !strings.Contains(err.Error(), "above 9007199254740991") {
		t.Errorf("ParseVersion of 2^53: %v", err)
	}
	if _, err := ParseVersion("9007199254740991.9007199254740991.9007199254740991"); err != nil {
		t.Errorf("ParseVersion of 2^53-1: %v", err)
	}
	idx := `{"version":"1.0.0","agents":[` +
		`{"id":"big","name":"Big","version":"9007199254740993.0.0","description":"d","distribution":{"npx":{"package":"big@1.0.0"}}},` +
		`{"id":"bigpreview","name":"P","version":"1.0.0","description":"d","distribution":{"npx":{"package":"p@1.0.0"}},"preview":{"version":"1.18446744073709551616.0","distribution":{"npx":{"package":"p@1.0.0"}}}},` +
		`{"id":"ok","name":"Ok","version":"9007199254740991.0.0","description":"d","distribution":{"npx":{"package":"ok@1.0.0"}}}]}`
	x, err := ParseIndex([]byte(idx))
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Agents) != 1 || x.Agents[0].ID != "ok" || len(x.Refused) != 2 || !strings.Contains(x.Refused[0].Reason, "above 9007199254740991") {
		t.Errorf("agents %v, refused %+v", x.Agents, x.Refused)
	}
}

// An env name with "=" in it is not one variable: launched, the entry
// "PATH=/zz/bin:/usr/bin=" sets PATH, and when sorted after the real
// PATH it wins (exec keeps the last of a name). A registry acp loads
// without validate (a mirror, a file) could so set PATH or HOME past
// env-reserved and the dropped set; such an agent is refused, as is a
// name with NUL or an empty one.
func TestCheckAgentRefusesEnvNamesThatAreNotOne(t *testing.T) {
	for _, name := range []string{"PATH=/zz/bin:/usr/bin", "HOME=/zz", "=C:", "", "A\x00PATH", "GITHUB_TOKEN\x00"} {
		m := &Manifest{ID: "a", Distribution: Distribution{Npx: &Package{Package: "a@1.0.0", Env: map[string]string{name: ""}}}}
		if err := CheckAgent(m); err == nil {
			t.Errorf("env name %q accepted", name)
		} else if strings.ContainsRune(err.Error(), 0) {
			t.Errorf("the message carries the NUL raw: %q", err)
		}
		body := `{"version":"1.0.0","agents":[{"id":"a","distribution":{"binary":{"linux-x86_64":{"archive":"https://x/a.tgz","cmd":"a","env":{` + strconv.Quote(name) + `:"x"}}}}}]}`
		if _, err := ParseIndex([]byte(body)); err == nil {
			t.Errorf("ParseIndex accepted env name %q", name)
		}
	}
	ok := &Manifest{ID: "a", Distribution: Distribution{Npx: &Package{Package: "a@1.0.0", Env: map[string]string{"MY_AGENT_MODE": "a=b"}}}}
	if err := CheckAgent(ok); err != nil {
		t.Errorf("a plain name with = in its value refused: %v", err)
	}
}

// The tool hooks of issue 26, one or more per class: each is reserved,
// its class named, and LaunchEnv leaves it out with a warning. Names
// agents do set, and near misses of the hooks, stay free.
func TestReservedEnvClasses(t *testing.T) {
	for name, class := range map[string]string{
		"LD_AUDIT": "loader or interpreter hook", "DYLD_LIBRARY_PATH": "loader or interpreter hook", "PERL5OPT": "loader or interpreter hook",
		"PERL5DB": "loader or interpreter hook", "PYTHONSTARTUP": "loader or interpreter hook", "RUBYOPT": "loader or interpreter hook",
		"JAVA_TOOL_OPTIONS": "loader or interpreter hook", "_JAVA_OPTIONS": "loader or interpreter hook", "GCONV_PATH": "loader or interpreter hook",
		"GIT_EXTERNAL_DIFF": "git or go hook or repository override", "GIT_DIR": "git or go hook or repository override",
		"git_ssh_command": "git or go hook or repository override", "GIT_CONFIG_GLOBAL": "git or go hook or repository override",
		"GOFLAGS": "git or go hook or repository override", "GOTOOLCHAIN": "git or go hook or repository override",
		"BASH_FUNC_git%%": "shell function export or startup hook", "BASH_FUNC_ls()": "shell function export or startup hook",
		"SHELLOPTS": "shell function export or startup hook", "PS4": "shell function export or startup hook",
		"BASH_ENV": "shell function export or startup hook", "ENV": "shell function export or startup hook",
		"SSLKEYLOGFILE": "TLS key log",
		"LESSOPEN":      "pager, editor or preprocessor hook", "LESSCLOSE": "pager, editor or preprocessor hook",
		"PAGER": "pager, editor or preprocessor hook", "GIT_PAGER": "pager, editor or preprocessor hook", "EDITOR": "pager, editor or preprocessor hook",
		"PATH": "launcher or host setting", "HTTPS_PROXY": "network or trust setting", "npm_config_registry": "package source",
	} {
		if got := reservedClassName(name); got != class {
			t.Errorf("reservedClassName(%q) = %q, want %q", name, got, class)
		}
		if msg := ReservedEnvMessage(name); !strings.HasPrefix(msg, "env sets "+name+", ") || !strings.HasSuffix(msg, ": remove it") {
			t.Errorf("ReservedEnvMessage(%q) = %q", name, msg)
		}
		kept, warns := LaunchEnv("a", map[string]string{name: "x", "MY_MODE": "y"})
		if _, ok := kept[name]; ok || kept["MY_MODE"] != "y" || len(warns) != 1 || !strings.Contains(warns[0], "it is a "+class) {
			t.Errorf("LaunchEnv with %s: kept %v, warnings %q", name, kept, warns)
		}
	}
	for _, name := range []string{"GIT_AUTHOR_NAME", "GIT_TERMINAL_PROMPT", "GOPATH", "PYTHONUNBUFFERED", "LESS", "TERM", "ENVIRONMENT",
		"MY_ENV", "BASH_SILENCE_DEPRECATION_WARNING", "PERL_BADLANG", "JAVA_HOME", "OPENAI_BASE_URL"} {
		if ReservedEnv(name) {
			t.Errorf("%s is reserved (class %q), but it hooks nothing", name, reservedClassName(name))
		}
	}
}

// docs/rules.md and docs/security.md list every reserved name.
func TestReservedEnvDocumented(t *testing.T) {
	for _, doc := range []string{"../docs/rules.md", "../docs/security.md"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for name := range reservedEnv() {
			if !strings.Contains(string(data), "`"+name+"`") {
				t.Errorf("%s does not list %s", doc, name)
			}
		}
		for _, p := range reservedPrefixes {
			if !strings.Contains(string(data), "`"+p.prefix+"*`") {
				t.Errorf("%s does not list %s*", doc, p.prefix)
			}
		}
	}
}

// Where the copy of the library's grammar and the third reader disagreed
// (issue 27), acp now reads as Masterminds/semver does: "V1.2.3" and a
// pre-release identifier with a leading zero ("1.2.3-01", which semver
// 2.0 forbids) are not versions, so they are never the same as 1.2.3 or
// 1.2.3-1 (docs/decisions.md).
func TestVersionsReadAsTheLibraryReadsThem(t *testing.T) {
	for _, c := range [][2]string{{"V1.2.3", "1.2.3"}, {"1.2.3-01", "1.2.3-1"}} {
		if _, err := ParseVersion(c[0]); err == nil {
			t.Errorf("ParseVersion(%q) accepted it", c[0])
		}
		if SameVersion(c[0], c[1]) || Newer(c[0], c[1]) || Newer(c[1], c[0]) {
			t.Errorf("%q is read as a version beside %q", c[0], c[1])
		}
		if ExactNPMVersion(c[0]) {
			t.Errorf("ExactNPMVersion(%q) = true", c[0])
		}
	}
	for _, v := range []string{"v1.2.3", "1.2", "01.2.3", "1.2.3-beta.1+b.2"} {
		if _, err := ParseVersion(v); err != nil {
			t.Errorf("ParseVersion(%q): %v", v, err)
		}
	}
	if !ExactNPMVersion("v1.2.3-rc.1") || ExactNPMVersion("1.2") || ExactNPMVersion("^1.2.0") {
		t.Error("ExactNPMVersion reads the wrong forms as one npm version")
	}
}

// A range selects the versions npm's would: a pre-release only where its
// group names one, x-ranges and hyphen ranges as npm reads them.
func TestRangesSelect(t *testing.T) {
	for _, c := range []struct {
		r       string
		in, out []string
	}{
		{">=18 <22 || ^23", []string{"18.0.0", "21.9.9", "23.4.0"}, []string{"17.9.9", "22.0.0", "24.0.0", "23.5.0-rc.1"}},
		{"1.2 - 2.3.4", []string{"1.2.0", "2.3.4"}, []string{"1.1.9", "2.3.5"}},
		{"~1.2", []string{"1.2.0", "1.2.9"}, []string{"1.3.0"}},
		{"18.x || 20.x", []string{"18.19.0", "20.0.0"}, []string{"19.0.0", "22.0.0"}},
		{">=1.0.0-alpha <1.0.0", []string{"1.0.0-beta"}, []string{"1.0.0", "0.9.0"}},
	} {
		r, err := ParseRange(c.r)
		if err != nil {
			t.Fatalf("ParseRange(%q): %v", c.r, err)
		}
		for _, v := range c.in {
			if sv, err := ParseVersion(v); err != nil || !r.Check(sv) {
				t.Errorf("%q does not select %s (%v)", c.r, v, err)
			}
		}
		for _, v := range c.out {
			if sv, err := ParseVersion(v); err != nil || r.Check(sv) {
				t.Errorf("%q selects %s (%v)", c.r, v, err)
			}
		}
	}
	for _, bad := range []string{"not a range", ">=1.2 <", strings.Repeat("1||", 40)} {
		if _, err := ParseRange(bad); err == nil {
			t.Errorf("ParseRange(%q) accepted it", bad)
		}
	}
}

// reservedClassName names the class of a reserved variable, "" when name
// is not reserved.
func reservedClassName(name string) string {
	if c := reservedClass(name); c != nil {
		return c.name
	}
	return ""
}
