package validate

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
)

// baseManifest is valid and uses every part of the format, so each case
// below changes one thing and sees exactly the rule it is about.
const baseManifest = `{
  "id": "demo",
  "name": "Demo Agent",
  "version": "1.2.3",
  "description": "A demo agent",
  "repository": "https://github.com/example/demo",
  "website": "https://example.com",
  "authors": ["Example"],
  "license": "MIT",
  "license_url": "https://example.com/license",
  "distribution": {
    "binary": {
      "darwin-aarch64": {
        "archive": "https://github.com/example/demo/releases/download/v1.2.3/demo-darwin-arm64.tar.gz",
        "cmd": "./demo",
        "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
      },
      "linux-x86_64": {
        "archive": "https://github.com/example/demo/releases/download/v1.2.3/demo-linux-x64.zip",
        "cmd": "bin/demo",
        "args": ["acp"],
        "env": {"DEMO_MODE": "acp"}
      },
      "windows-x86_64": {
        "archive": "https://github.com/example/demo/releases/download/v1.2.3/demo-windows-x64.zip",
        "cmd": "demo.exe"
      }
    },
    "npx": {"package": "@example/demo@1.2.3", "args": ["--acp"], "env": {"DEMO_LOG": "1"}},
    "uvx": {"package": "demo-agent[acp]==1.2.3"}
  },
  "preview": {
    "version": "1.3.0-preview.1",
    "distribution": {"npx": {"package": "@example/demo@1.3.0-preview.1"}}
  }
}
`

const winTarget = `,
      "windows-x86_64": {
        "archive": "https://github.com/example/demo/releases/download/v1.2.3/demo-windows-x64.zip",
        "cmd": "demo.exe"
      }`

type ruleCase struct {
	name  string
	rule  string
	want  bool     // the rule must appear (true) or must not (false)
	edits []string // old, new pairs applied to baseManifest
	src   string   // whole file instead of baseManifest+edits
	dir   string   // folder name; "demo" unless set ("-" for unknown)
	ptr   string   // expected pointer (positive cases)
	at    string   // the problem points at the first occurrence of this text
	msg   string   // expected part of the message
	all   bool     // apply each edit to every occurrence
}

var ruleCases = []ruleCase{
	{name: "syntax missing comma", rule: RuleJSONSyntax, want: true, edits: []string{`"id": "demo",`, `"id": "demo"`}, at: `"name"`, msg: "missing comma"},
	{name: "syntax duplicate key", rule: RuleJSONSyntax, want: true, edits: []string{`"name": "Demo Agent",`, `"name": "Demo Agent", "name": "Again",`}, ptr: "/name", at: `"name": "Again"`, msg: `duplicate field "name"`},
	{name: "syntax not an object", rule: RuleJSONSyntax, want: true, src: `["demo"]`, at: `[`, msg: "must hold a JSON object"},
	{name: "syntax invalid utf8", rule: RuleJSONSyntax, want: true, edits: []string{`A demo agent`, "A demo \xff agent"}, at: "\xff", msg: "not valid UTF-8"},
	{name: "syntax byte order mark", rule: RuleJSONSyntax, want: true, src: "\xEF\xBB\xBF" + baseManifest, msg: "byte order mark"},
	{name: "syntax clean", rule: RuleJSONSyntax, want: false, edits: []string{`"A demo agent"`, `"A \"demo\" agent \u00e9"`}},

	{name: "schema wrong type", rule: RuleSchema, want: true, edits: []string{`["Example"]`, `[{"name": "Example"}]`}, ptr: "/authors/0", at: `{"name": "Example"}`, msg: `item 0 of "authors" must be a string, not an object`},
	{name: "schema missing required", rule: RuleSchema, want: true, edits: []string{`"name": "Demo Agent",`, ``}, ptr: "", msg: `missing the required field "name"`},
	{name: "schema env name not portable", rule: RuleSchema, want: true, edits: []string{`"DEMO_LOG": "1"`, `"DEMO;LOG": "1"`}, ptr: "/distribution/npx/env/DEMO;LOG", at: `"DEMO;LOG"`, msg: `environment variable name "DEMO;LOG" is not a portable name`},
	{name: "schema empty string", rule: RuleSchema, want: true, edits: []string{`"A demo agent"`, `""`}, ptr: "/description", at: `""`, msg: "must not be empty"},
	{name: "schema unknown key in target", rule: RuleSchema, want: true, edits: []string{`"cmd": "demo.exe"`, `"cmd": "demo.exe", "sha": "x"`}, ptr: "/distribution/binary/windows-x86_64/sha", at: `"sha"`, msg: `unknown field "sha" in "windows-x86_64": remove it (allowed: archive, sha256, cmd, args, env)`},
	{name: "schema unknown distribution", rule: RuleSchema, want: true, edits: []string{`"uvx": {`, `"npm": {}, "uvx": {`}, ptr: "/distribution/npm", at: `"npm"`, msg: `unknown distribution "npm": use binary, npx or uvx`},
	{name: "schema unknown platform", rule: RuleSchema, want: true, edits: []string{`"linux-x86_64": {`, `"linux-arm64": {`}, ptr: "/distribution/binary/linux-arm64", at: `"linux-arm64"`, msg: `unknown platform "linux-arm64": use one of darwin-aarch64, darwin-x86_64, linux-aarch64, linux-x86_64, windows-aarch64, windows-x86_64`},
	{name: "sha256 one character short", rule: RuleSHA256Format, want: true, edits: []string{`"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"`, `"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0"`}, ptr: "/distribution/binary/darwin-aarch64/sha256", at: `"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0"`, msg: "sha256 of darwin-aarch64 is 63 characters long, not 64"},
	{name: "sha256 not hexadecimal", rule: RuleSHA256Format, want: true, edits: []string{`"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"`, `"sha256:9f86d0"`}, ptr: "/distribution/binary/darwin-aarch64/sha256", msg: `holds 's', which is not a hexadecimal digit (13 characters in all)`},
	{name: "sha256 problem is not also a schema one", rule: RuleSchema, want: false, edits: []string{`"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"`, `"9f86d0"`}},
	{name: "sha256 uppercase is fine", rule: RuleSHA256Format, want: false, edits: []string{`9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08`, `9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08`}},
	{name: "placeholder left in name", rule: RulePlaceholder, want: true, edits: []string{`"Demo Agent"`, `"REPLACE with the name editors show"`}, ptr: "/name", at: `"REPLACE`, msg: `"name" still holds the placeholder`},
	{name: "placeholder left in an author", rule: RulePlaceholder, want: true, edits: []string{`["Example"]`, `["REPLACE with an author"]`}, ptr: "/authors/0"},
	{name: "placeholder is the only problem of its value", rule: RuleURLFormat, want: false, edits: []string{`"https://example.com"`, `"REPLACE with the https:// URL of the agent's homepage"`}},
	{name: "placeholder written with a \\u escape", rule: RulePlaceholder, want: true, edits: []string{`"Demo Agent"`, `"\u0052EPLACE with the name editors show"`}, ptr: "/name"},
	{name: "placeholder word inside a value is fine", rule: RulePlaceholder, want: false, edits: []string{`"A demo agent"`, `"REPLACEMENT for REPLACE-based tools"`}},
	{name: "schema binary without platforms", rule: RuleSchema, want: true, src: `{"id": "demo", "name": "D", "version": "1.0.0", "description": "d", "license_url": "https://x.dev/l", "distribution": {"binary": {}}}`, ptr: "/distribution/binary", msg: `"binary" lists no platforms: add targets (darwin-aarch64, darwin-x86_64, linux-aarch64, linux-x86_64, windows-aarch64, windows-x86_64) or remove it`},
	{name: "schema type of a list", rule: RuleSchema, want: true, edits: []string{`"args": ["acp"]`, `"args": "acp"`}, ptr: "/distribution/binary/linux-x86_64/args", msg: `"args" must be an array, not a string`},
	{name: "schema uppercase sha256 is fine", rule: RuleSchema, want: false, edits: []string{`9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08`, `9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08`}},

	{name: "unknown field", rule: RuleUnknownField, want: true, edits: []string{`"license": "MIT",`, `"license": "MIT", "homepage": "https://example.com",`}, ptr: "/homepage", at: `"homepage"`, msg: `rename it to "website"`},
	{name: "known fields only", rule: RuleUnknownField, want: false, edits: []string{`"license": "MIT",`, `"license": "MIT", "icon": "./icon.svg",`}},

	{name: "id format", rule: RuleIDFormat, want: true, dir: "-", edits: []string{`"id": "demo"`, `"id": "Demo_Agent"`}, ptr: "/id", at: `"Demo_Agent"`, msg: `"demo-agent"`},
	{name: "id format ok", rule: RuleIDFormat, want: false, dir: "-", edits: []string{`"id": "demo"`, `"id": "demo-2"`}},
	{name: "id dir mismatch", rule: RuleIDDirMismatch, want: true, dir: "other", ptr: "/id", at: `"demo"`, msg: `rename the folder to "demo"`},
	{name: "id dir unknown", rule: RuleIDDirMismatch, want: false, dir: "-"},
	{name: "id dir mismatch, bad id", rule: RuleIDDirMismatch, want: true, dir: "demo", edits: []string{`"id": "demo"`, `"id": "../x"`}, ptr: "/id", msg: `"demo": set "id" to "demo"`},
	{name: "id dir mismatch, bad folder", rule: RuleIDDirMismatch, want: true, dir: "A B", msg: `"A B": rename the folder to "demo"`},

	{name: "version four parts", rule: RuleVersionSemver, want: true, edits: []string{`"version": "1.2.3"`, `"version": "1.18.31.1"`}, ptr: "/version", at: `"1.18.31.1"`, msg: "drop the fourth part"},
	{name: "version two parts", rule: RuleVersionSemver, want: true, edits: []string{`"version": "1.2.3"`, `"version": "1.2"`}, ptr: "/version", msg: `write "1.2.0"`},
	{name: "version leading v", rule: RuleVersionSemver, want: true, edits: []string{`"version": "1.2.3"`, `"version": "v1.2.3"`}, ptr: "/version", msg: `drop the leading "v"`},
	{name: "version pre-release", rule: RuleVersionSemver, want: true, edits: []string{`"version": "1.2.3"`, `"version": "1.2.3-beta.1"`}, ptr: "/version", msg: "belong in \"preview\""},
	{name: "version fine", rule: RuleVersionSemver, want: false, edits: []string{`"version": "1.2.3"`, `"version": "10.20.30"`}},
	{name: "version above 2^53-1", rule: RuleVersionSemver, want: true, edits: []string{`"version": "1.2.3"`, `"version": "9007199254740993.0.0"`}, ptr: "/version", msg: "above 9007199254740991"},
	{name: "preview version above 2^53-1", rule: RulePreviewVersion, want: true, edits: []string{`"version": "1.3.0-preview.1"`, `"version": "9007199254740992.0.0"`, `@example/demo@1.3.0-preview.1`, `@example/demo@9007199254740992.0.0`}, ptr: "/preview/version", msg: "above 9007199254740991"},
	{name: "version at 2^53-1", rule: RuleVersionSemver, want: false, edits: []string{`"version": "1.2.3"`, `"version": "1.9007199254740991.0"`}},

	{name: "version leading zero", rule: RuleVersionLeadingZero, want: true, edits: []string{`"version": "1.2.3"`, `"version": "2026.10.01"`}, ptr: "/version", msg: `write "2026.10.1"`},
	{name: "version no leading zero", rule: RuleVersionLeadingZero, want: false, edits: []string{`"version": "1.2.3"`, `"version": "2026.10.1"`}},

	{name: "url not absolute", rule: RuleURLFormat, want: true, edits: []string{`"https://github.com/example/demo"`, `"github.com/example/demo"`}, ptr: "/repository", at: `"github.com/example/demo"`},
	{name: "url http allowed", rule: RuleURLFormat, want: false, edits: []string{`"https://example.com"`, `"http://example.com"`}},

	{name: "license url missing", rule: RuleLicenseURLMissing, want: true, edits: []string{`"license_url": "https://example.com/license",`, ``}, ptr: ""},
	{name: "license url present", rule: RuleLicenseURLMissing, want: false},

	{name: "distribution empty", rule: RuleDistributionEmpty, want: true, src: `{"id": "demo", "name": "D", "version": "1.0.0", "description": "d", "license_url": "https://x.dev/l", "distribution": {}}`, ptr: "/distribution", at: `{}`},
	{name: "distribution unknown kind only", rule: RuleDistributionEmpty, want: true, src: `{"id": "demo", "name": "D", "version": "1.0.0", "description": "d", "license_url": "https://x.dev/l", "distribution": {"npm": {"package": "x@1.0.0"}}}`, ptr: "/distribution"},
	{name: "distribution npx only", rule: RuleDistributionEmpty, want: false, src: `{"id": "demo", "name": "D", "version": "1.0.0", "description": "d", "license_url": "https://x.dev/l", "distribution": {"npx": {"package": "x@1.0.0"}}}`},

	{name: "os coverage", rule: RuleBinaryOSCoverage, want: true, edits: []string{winTarget, ``}, ptr: "/distribution/binary", msg: "no target for windows"},
	{name: "os coverage complete", rule: RuleBinaryOSCoverage, want: false},

	{name: "archive http", rule: RuleBinaryArchiveHTTPS, want: true, edits: []string{`"https://github.com/example/demo/releases/download/v1.2.3/demo-linux-x64.zip"`, `"http://github.com/example/demo/releases/download/v1.2.3/demo-linux-x64.zip"`}, ptr: "/distribution/binary/linux-x86_64/archive", at: `"http://`, msg: "use https://"},
	{name: "archive relative", rule: RuleBinaryArchiveHTTPS, want: true, edits: []string{`"https://github.com/example/demo/releases/download/v1.2.3/demo-linux-x64.zip"`, `"demo-linux-x64.zip"`}, ptr: "/distribution/binary/linux-x86_64/archive"},
	{name: "archive https", rule: RuleBinaryArchiveHTTPS, want: false},

	{name: "archive dmg", rule: RuleBinaryArchiveFormat, want: true, edits: []string{`demo-darwin-arm64.tar.gz`, `Demo%20CLI.DMG`}, ptr: "/distribution/binary/darwin-aarch64/archive", msg: ".dmg installer"},
	{name: "archive msi behind a query", rule: RuleBinaryArchiveFormat, want: true, edits: []string{`demo-windows-x64.zip`, `demo-windows-x64.msi?download=1`}, ptr: "/distribution/binary/windows-x86_64/archive", msg: ".msi installer"},
	{name: "archive tar.xz", rule: RuleBinaryArchiveFormat, want: true, edits: []string{`demo-linux-x64.zip`, `demo-linux-x64.tar.xz`}, ptr: "/distribution/binary/linux-x86_64/archive", msg: ".tar.xz archive"},
	{name: "archive query ignored", rule: RuleBinaryArchiveFormat, want: false, edits: []string{`demo-linux-x64.zip`, `demo-linux-x64.zip?name=x.dmg#y.rar`}},
	{name: "archive raw executable", rule: RuleBinaryArchiveFormat, want: false, edits: []string{`demo-linux-x64.zip`, `demo-linux-x64`}},

	{name: "cmd parent", rule: RuleBinaryCmdPath, want: true, edits: []string{`"cmd": "bin/demo"`, `"cmd": "bin/../../demo"`}, ptr: "/distribution/binary/linux-x86_64/cmd", at: `"bin/../../demo"`, msg: `".." segment`},
	{name: "cmd absolute", rule: RuleBinaryCmdPath, want: true, edits: []string{`"cmd": "bin/demo"`, `"cmd": "/usr/bin/demo"`}, ptr: "/distribution/binary/linux-x86_64/cmd", msg: "absolute"},
	{name: "cmd drive letter", rule: RuleBinaryCmdPath, want: true, edits: []string{`"cmd": "demo.exe"`, `"cmd": "C:\\demo.exe"`}, ptr: "/distribution/binary/windows-x86_64/cmd", msg: "drive letter"},
	{name: "cmd empty", rule: RuleBinaryCmdPath, want: true, edits: []string{`"cmd": "demo.exe"`, `"cmd": ""`}, ptr: "/distribution/binary/windows-x86_64/cmd", msg: "is empty"},
	{name: "cmd with arguments", rule: RuleBinaryCmdArgs, want: true, edits: []string{`"cmd": "bin/demo"`, `"cmd": "bin/demo acp"`}, ptr: "/distribution/binary/linux-x86_64/cmd", at: `"bin/demo acp"`, msg: `put the executable in cmd ("bin/demo") and the arguments in "args"`},
	{name: "cmd without spaces", rule: RuleBinaryCmdArgs, want: false, edits: []string{`"cmd": "bin/demo"`, `"cmd": "bin/demo-acp"`}},
	{name: "cmd backslashes inside", rule: RuleBinaryCmdPath, want: false, edits: []string{`"cmd": "demo.exe"`, `"cmd": "bin\\demo..exe"`}},

	{name: "archive latest", rule: RuleBinaryLatest, want: true, edits: []string{`releases/download/v1.2.3/demo-linux-x64.zip`, `releases/latest/download/demo-linux-x64.zip`}, ptr: "/distribution/binary/linux-x86_64/archive", msg: `points at "latest"`},
	{name: "archive latest in a name", rule: RuleBinaryLatest, want: false, edits: []string{`demo-linux-x64.zip`, `latest-demo.zip`}},

	{name: "archive other release", rule: RuleBinaryVersionMismatch, want: true, edits: []string{`download/v1.2.3/demo-linux-x64.zip`, `download/v1.2.4/demo-linux-x64.zip`}, ptr: "/distribution/binary/linux-x86_64/archive", msg: `release "1.2.4"`},
	{name: "archive other npm tarball", rule: RuleBinaryVersionMismatch, want: true, edits: []string{`https://github.com/example/demo/releases/download/v1.2.3/demo-linux-x64.zip`, `https://registry.npmjs.org/@example/demo-linux/-/demo-linux-1.2.2.tgz`}, ptr: "/distribution/binary/linux-x86_64/archive", msg: `npm tarball "1.2.2"`},
	{name: "archive prefixed tag", rule: RuleBinaryVersionMismatch, want: false, edits: []string{`download/v1.2.3/demo-linux-x64.zip`, `download/cli-v1.2.3/demo-linux-x64.zip`}},
	{name: "archive short tag padded", rule: RuleBinaryVersionMismatch, want: false, all: true, edits: []string{`"version": "1.2.3"`, `"version": "1.2.0"`, `download/v1.2.3/`, `download/v1.2/`}},
	{name: "archive tag not a version", rule: RuleBinaryVersionMismatch, want: false, edits: []string{`download/v1.2.3/demo-linux-x64.zip`, `download/nightly/demo-linux-x64.zip`}},

	{name: "package latest", rule: RulePackageLatest, want: true, edits: []string{`"@example/demo@1.2.3"`, `"@example/demo@latest"`}, ptr: "/distribution/npx/package", at: `"@example/demo@latest"`, msg: `write "@example/demo@1.2.3"`},
	{name: "package latest with a short version", rule: RulePackageLatest, want: true, edits: []string{`"@example/demo@1.2.3"`, `"@example/demo@latest"`, `"version": "1.2.3"`, `"version": "1.2"`}, ptr: "/distribution/npx/package", at: `"@example/demo@latest"`, msg: `write "@example/demo@1.2.0"`},
	{name: "package named latest", rule: RulePackageLatest, want: false, edits: []string{`"@example/demo@1.2.3"`, `"@example/latest@1.2.3"`}},

	{name: "package other version", rule: RulePackageVersionMismatch, want: true, edits: []string{`"@example/demo@1.2.3"`, `"@example/demo@1.2.4"`}, ptr: "/distribution/npx/package", msg: `write "@example/demo@1.2.3"`},
	{name: "package pypi other version", rule: RulePackageVersionMismatch, want: true, edits: []string{`"demo-agent[acp]==1.2.3"`, `"demo-agent[acp]==1.0.0"`}, ptr: "/distribution/uvx/package", msg: `write "demo-agent[acp]==1.2.3"`},
	{name: "package short pypi pin", rule: RulePackageVersionMismatch, want: false, all: true, edits: []string{`"version": "1.2.3"`, `"version": "1.2.0"`, `download/v1.2.3/`, `download/v1.2.0/`, `"@example/demo@1.2.3"`, `"@example/demo@1.2.0"`, `"demo-agent[acp]==1.2.3"`, `"demo-agent[acp]==1.2"`}},
	{name: "package npm short pin is a range", rule: RulePackageVersionMismatch, want: true, all: true, edits: []string{`"version": "1.2.3"`, `"version": "1.2.0"`, `download/v1.2.3/`, `download/v1.2.0/`, `"@example/demo@1.2.3"`, `"@example/demo@1.2"`}, ptr: "/distribution/npx/package", at: `"@example/demo@1.2"`, msg: `npm reads as a range of versions, not one: write "@example/demo@1.2.0"`},
	{name: "package npm caret is a range", rule: RulePackageVersionMismatch, want: true, edits: []string{`"@example/demo@1.2.3"`, `"@example/demo@^1.2.3"`}, ptr: "/distribution/npx/package", msg: `write "@example/demo@1.2.3"`},
	{name: "package npm leading v", rule: RulePackageVersionMismatch, want: false, edits: []string{`"@example/demo@1.2.3"`, `"@example/demo@v1.2.3"`}},
	{name: "package pypi range warns", rule: RulePackageUnpinned, want: true, edits: []string{`"demo-agent[acp]==1.2.3"`, `"demo-agent>=1.0.0"`}, ptr: "/distribution/uvx/package", msg: `write "demo-agent==1.2.3"`},
	{name: "package pypi compatible range warns", rule: RulePackageUnpinned, want: true, edits: []string{`"demo-agent[acp]==1.2.3"`, `"demo-agent~=1.2"`}, ptr: "/distribution/uvx/package", msg: "range of versions"},

	{name: "package unpinned", rule: RulePackageUnpinned, want: true, edits: []string{`"demo-agent[acp]==1.2.3"`, `"demo-agent[acp]"`}, ptr: "/distribution/uvx/package", msg: `write "demo-agent[acp]==1.2.3"`},
	{name: "package pinned", rule: RulePackageUnpinned, want: false},

	{name: "package npm uppercase", rule: RulePackageName, want: true, edits: []string{`"@example/demo@1.2.3"`, `"@Example/Demo@1.2.3"`}, ptr: "/distribution/npx/package", msg: "not a valid npm package name"},
	{name: "package pypi space", rule: RulePackageName, want: true, edits: []string{`"demo-agent[acp]==1.2.3"`, `"demo agent==1.2.3"`}, ptr: "/distribution/uvx/package", msg: "whitespace"},
	{name: "package pypi range is a name", rule: RulePackageName, want: false, edits: []string{`"demo-agent[acp]==1.2.3"`, `"demo-agent>=1.2.3"`}},
	{name: "package npm alias", rule: RulePackageName, want: true, edits: []string{`"@example/demo@1.2.3"`, `"@example/demo@npm:evil@1.2.3"`}, ptr: "/distribution/npx/package", msg: "npm alias"},
	{name: "package npm file", rule: RulePackageName, want: true, edits: []string{`"@example/demo@1.2.3"`, `"@example/demo@file:../evil"`}, ptr: "/distribution/npx/package", msg: "file:"},
	{name: "package npm git", rule: RulePackageName, want: true, edits: []string{`"@example/demo@1.2.3"`, `"@example/demo@git+https://github.com/e/v"`}, ptr: "/distribution/npx/package", msg: "git"},
	{name: "package npm url", rule: RulePackageName, want: true, edits: []string{`"@example/demo@1.2.3"`, `"https://evil.example/demo.tgz"`}, ptr: "/distribution/npx/package", msg: "URL"},
	{name: "package npm tag", rule: RulePackageName, want: true, edits: []string{`"@example/demo@1.2.3"`, `"@example/demo@next"`}, ptr: "/distribution/npx/package", msg: "neither a version"},
	{name: "package npm option", rule: RulePackageName, want: true, edits: []string{`"@example/demo@1.2.3"`, `"--global"`}, ptr: "/distribution/npx/package", msg: "option"},
	{name: "package npm short option", rule: RulePackageName, want: true, edits: []string{`"@example/demo@1.2.3"`, `"-g"`}, ptr: "/distribution/npx/package", msg: "option"},
	{name: "package npm newline", rule: RulePackageName, want: true, edits: []string{`"@example/demo@1.2.3"`, `"@example/demo@1.2.3\n--global"`}, ptr: "/distribution/npx/package", msg: "whitespace"},
	{name: "package pypi url", rule: RulePackageName, want: true, edits: []string{`"demo-agent[acp]==1.2.3"`, `"demo-agent@https://evil.example/d.whl"`}, ptr: "/distribution/uvx/package", msg: "URL"},
	{name: "package preview alias", rule: RulePackageName, want: true, edits: []string{`"@example/demo@1.3.0-preview.1"`, `"@example/demo@npm:evil@1.3.0-preview.1"`}, ptr: "/preview/distribution/npx/package", msg: "npm alias"},
	{name: "package pypi bad name", rule: RulePackageName, want: true, edits: []string{`"demo-agent[acp]==1.2.3"`, `"demo-agent-==1.2.3"`}, ptr: "/distribution/uvx/package", msg: "not a valid PyPI project name"},
	{name: "package names fine", rule: RulePackageName, want: false, edits: []string{`"@example/demo@1.2.3"`, `"demo.js_x-y@1.2.3"`}},

	{name: "preview version", rule: RulePreviewVersion, want: true, edits: []string{`"version": "1.3.0-preview.1"`, `"version": "1.3.0-beta.1"`}, ptr: "/preview/version", at: `"1.3.0-beta.1"`},
	{name: "preview version plain", rule: RulePreviewVersion, want: false, edits: []string{`"version": "1.3.0-preview.1"`, `"version": "1.3.0"`, `@example/demo@1.3.0-preview.1`, `@example/demo@1.3.0`}},

	{name: "preview binary", rule: RulePreviewDistribution, want: true, edits: []string{`"distribution": {"npx": {"package": "@example/demo@1.3.0-preview.1"}}`, `"distribution": {"npx": {"package": "@example/demo@1.3.0-preview.1"}, "binary": {}}`}, ptr: "/preview/distribution/binary", at: `"binary": {}}`, msg: "only npx or uvx"},
	{name: "preview empty", rule: RulePreviewDistribution, want: true, edits: []string{`"distribution": {"npx": {"package": "@example/demo@1.3.0-preview.1"}}`, `"distribution": {}`}, ptr: "/preview/distribution"},
	{name: "preview uvx", rule: RulePreviewDistribution, want: false, edits: []string{`"distribution": {"npx": {"package": "@example/demo@1.3.0-preview.1"}}`, `"distribution": {"uvx": {"package": "demo-agent==1.3.0-preview.1"}}`}},

	{name: "preview pin differs", rule: RulePreviewVersionMismatch, want: true, edits: []string{`@example/demo@1.3.0-preview.1"}}`, `@example/demo@1.3.0-preview.2"}}`}, ptr: "/preview/distribution/npx/package", msg: `write "@example/demo@1.3.0-preview.1"`},
	{name: "preview pin same", rule: RulePreviewVersionMismatch, want: false},

	{name: "env GITHUB_TOKEN dropped", rule: RuleEnvDropped, want: true, edits: []string{`"DEMO_LOG": "1"`, `"GITHUB_TOKEN": "x"`}, ptr: "/distribution/npx/env/GITHUB_TOKEN", msg: "not passed to the agent"},
	{name: "env aws prefix any case dropped", rule: RuleEnvDropped, want: true, edits: []string{`"DEMO_LOG": "1"`, `"aws_region": "x"`}, ptr: "/distribution/npx/env/aws_region"},
	{name: "env CI dropped", rule: RuleEnvDropped, want: true, edits: []string{`"DEMO_LOG": "1"`, `"CI": "1"`}, ptr: "/distribution/npx/env/CI"},
	{name: "env SSH_AUTH_SOCK dropped", rule: RuleEnvDropped, want: true, edits: []string{`"DEMO_LOG": "1"`, `"SSH_AUTH_SOCK": "x"`}, ptr: "/distribution/npx/env/SSH_AUTH_SOCK"},
	{name: "env PATH refused, not only dropped", rule: RuleEnvDropped, want: false, edits: []string{`"DEMO_LOG": "1"`, `"PATH": "x"`}},
	{name: "env own variable kept", rule: RuleEnvDropped, want: false},
	{name: "env PATH", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_MODE": "acp"`, `"DEMO_MODE": "acp", "PATH": "/tmp"`}, ptr: "/distribution/binary/linux-x86_64/env/PATH", at: `"PATH"`, msg: "env sets PATH"},
	{name: "env ld_preload any case", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"ld_preload": "x.so"`}, ptr: "/distribution/npx/env/ld_preload"},
	{name: "env proxy", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"HTTPS_PROXY": "http://evil"`}, ptr: "/distribution/npx/env/HTTPS_PROXY"},
	{name: "env ComSpec", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"ComSpec": "C:\\evil.exe"`}, ptr: "/distribution/npx/env/ComSpec", msg: "env sets ComSpec"},
	{name: "env USERPROFILE", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"USERPROFILE": "C:\\x"`}, ptr: "/distribution/npx/env/USERPROFILE"},
	{name: "env AppData", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"AppData": "x"`}, ptr: "/distribution/npx/env/AppData"},
	{name: "env LOCALAPPDATA", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"LOCALAPPDATA": "x"`}, ptr: "/distribution/npx/env/LOCALAPPDATA"},
	{name: "env SystemRoot", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"SystemRoot": "x"`}, ptr: "/distribution/npx/env/SystemRoot"},
	{name: "env loader hook", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"PERL5OPT": "-Mx"`}, ptr: "/distribution/npx/env/PERL5OPT", msg: "a loader or interpreter hook"},
	{name: "env java hook", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"JAVA_TOOL_OPTIONS": "-javaagent:x.jar"`}, ptr: "/distribution/npx/env/JAVA_TOOL_OPTIONS", msg: "a loader or interpreter hook"},
	{name: "env git hook", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"GIT_EXTERNAL_DIFF": "/tmp/x"`}, ptr: "/distribution/npx/env/GIT_EXTERNAL_DIFF", msg: "a git or go hook or repository override"},
	{name: "env go flags", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"GOFLAGS": "-toolexec=/tmp/x"`}, ptr: "/distribution/npx/env/GOFLAGS", msg: "a git or go hook or repository override"},
	{name: "env shell function", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"BASH_FUNC_git%%": "() { x; }"`}, ptr: "/distribution/npx/env/BASH_FUNC_git%%", msg: "a shell function export or startup hook"},
	{name: "env shell options", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"SHELLOPTS": "xtrace"`}, ptr: "/distribution/npx/env/SHELLOPTS", msg: "a shell function export or startup hook"},
	{name: "env TLS key log", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"SSLKEYLOGFILE": "/tmp/keys"`}, ptr: "/distribution/npx/env/SSLKEYLOGFILE", msg: "a TLS key log"},
	{name: "env pager hook", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_LOG": "1"`, `"LESSOPEN": "|/tmp/x %s"`}, ptr: "/distribution/npx/env/LESSOPEN", msg: "a pager, editor or preprocessor hook"},
	{name: "env git author kept", rule: RuleEnvReserved, want: false, edits: []string{`"DEMO_LOG": "1"`, `"GIT_AUTHOR_NAME": "Bot"`}},
	{name: "env PATHEXT", rule: RuleEnvReserved, want: true, edits: []string{`"DEMO_MODE": "acp"`, `"PATHEXT": ".JS"`}, ptr: "/distribution/binary/linux-x86_64/env/PATHEXT"},
	{name: "text escape in name", rule: RuleTextControl, want: true, edits: []string{`"Demo Agent"`, `"Demo\u001b[2J Agent"`}, ptr: "/name", at: `"Demo\u001b`, msg: "U+001B"},
	{name: "text newline in an author", rule: RuleTextControl, want: true, edits: []string{`["Example"]`, `["Example\n::error::x"]`}, ptr: "/authors/0", msg: "U+000A"},
	{name: "text C1 in license", rule: RuleTextControl, want: true, edits: []string{`"MIT"`, `"MIT\u009b"`}, ptr: "/license", msg: "U+009B"},
	{name: "text bidi override in args", rule: RuleTextControl, want: true, edits: []string{`["--acp"]`, `["--acp\u202e"]`}, ptr: "/distribution/npx/args/0", msg: "U+202E"},
	{name: "text bidi isolate in env value", rule: RuleTextControl, want: true, edits: []string{`"DEMO_LOG": "1"`, `"DEMO_LOG": "1\u2066"`}, ptr: "/distribution/npx/env/DEMO_LOG", msg: "U+2066"},
	{name: "text raw bidi override", rule: RuleTextControl, want: true, edits: []string{`"Demo Agent"`, "\"Demo \u202e Agent\""}, ptr: "/name", msg: "U+202E"},
	{name: "text raw C1", rule: RuleTextControl, want: true, edits: []string{`"MIT"`, "\"MIT\u009b\""}, ptr: "/license", msg: "U+009B"},
	{name: "text raw DEL", rule: RuleTextControl, want: true, edits: []string{`"MIT"`, "\"MIT\x7f\""}, ptr: "/license", msg: "U+007F"},
	{name: "text tab in name", rule: RuleTextControl, want: true, edits: []string{`"Demo Agent"`, `"Demo\tAgent"`}, ptr: "/name", msg: "U+0009"},
	{name: "text control in a field name", rule: RuleTextControl, want: true, edits: []string{`"license": "MIT",`, `"license": "MIT", "x\u0007": 1,`}, ptr: "/x\u0007", at: `"x\u0007"`, msg: "field name"},
	{name: "text tab in description", rule: RuleTextControl, want: false, edits: []string{`"A demo agent"`, `"A demo\tagent, ünïcödé ✓"`}},

	{name: "url user and password", rule: RuleURLCredentials, want: true, edits: []string{`"https://github.com/example/demo"`, `"https://user:secret@github.com/example/demo"`}, ptr: "/repository", at: `"https://user:`, msg: "user name and password"},
	{name: "url user name posing as host", rule: RuleURLCredentials, want: true, edits: []string{`"https://example.com"`, `"https://github.com@evil.example/"`}, ptr: "/website", msg: `goes to "evil.example"`},
	{name: "url credentials in license_url", rule: RuleURLCredentials, want: true, edits: []string{`"https://example.com/license"`, `"https://a@example.com/license"`}, ptr: "/license_url"},
	{name: "url credentials in archive", rule: RuleURLCredentials, want: true, edits: []string{`https://github.com/example/demo/releases/download/v1.2.3/demo-linux-x64.zip`, `https://github.com@evil.example/example/demo/releases/download/v1.2.3/demo-linux-x64.zip`}, ptr: "/distribution/binary/linux-x86_64/archive", msg: "user name"},
	{name: "url at sign in the path", rule: RuleURLCredentials, want: false, edits: []string{`"https://example.com"`, `"https://www.npmjs.com/package/@example/demo?v=a@b#c@d"`}},

	{name: "env own names", rule: RuleEnvReserved, want: false, edits: []string{`"DEMO_LOG": "1"`, `"DEMO_PATH": "x", "HOMEPAGE": "y", "LDAP_URL": "z"`}},
}

func (tc ruleCase) source(t *testing.T) string {
	if tc.src != "" {
		return tc.src
	}
	s := baseManifest
	for i := 0; i+1 < len(tc.edits); i += 2 {
		if !strings.Contains(s, tc.edits[i]) {
			t.Fatalf("edit %q does not apply", tc.edits[i])
		}
		n := 1
		if tc.all {
			n = -1
		}
		s = strings.Replace(s, tc.edits[i], tc.edits[i+1], n)
	}
	return s
}

func TestBaseManifestIsClean(t *testing.T) {
	r := ValidateManifest("demo/agent.json", []byte(baseManifest), "demo")
	if len(r.Problems) != 0 || !r.Valid {
		t.Fatalf("base manifest has problems: %+v", r.Problems)
	}
	if r.ID != "demo" || r.Manifest == nil || r.Manifest.Distribution.Npx == nil || len(r.Manifest.Distribution.Binary) != 3 || r.Manifest.Preview == nil {
		t.Errorf("manifest not decoded: %+v", r.Manifest)
	}
}

func TestRules(t *testing.T) {
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.source(t)
			dir := tc.dir
			switch dir {
			case "":
				dir = "demo"
			case "-":
				dir = ""
			}
			r := ValidateManifest("demo/agent.json", []byte(src), dir)
			var hits []Problem
			for _, p := range r.Problems {
				if p.Rule == tc.rule {
					hits = append(hits, p)
				}
			}
			if !tc.want {
				if len(hits) > 0 {
					t.Fatalf("unexpected %s: %+v", tc.rule, hits)
				}
				return
			}
			if len(hits) == 0 {
				t.Fatalf("no %s problem; got %+v", tc.rule, r.Problems)
			}
			p := hits[0]
			if tc.ptr != "" && p.Pointer != tc.ptr {
				t.Errorf("pointer %q, want %q", p.Pointer, tc.ptr)
			}
			if tc.msg != "" && !strings.Contains(p.Message, tc.msg) {
				t.Errorf("message %q does not contain %q", p.Message, tc.msg)
			}
			if tc.at != "" {
				off := strings.Index(src, tc.at)
				line, col := jsonpos.LineCol([]byte(src), off)
				if p.Line != line || p.Column != col {
					t.Errorf("at %d:%d, want %d:%d (%q)", p.Line, p.Column, line, col, tc.at)
				}
			}
			if p.File != "demo/agent.json" {
				t.Errorf("file %q", p.File)
			}
			wantSev := SeverityError
			switch tc.rule {
			case RuleUnknownField, RuleVersionLeadingZero, RuleLicenseURLMissing, RuleBinaryOSCoverage, RulePackageUnpinned, RuleBinaryCmdArgs, RuleEnvDropped:
				wantSev = SeverityWarning
			}
			if p.Severity != wantSev {
				t.Errorf("severity %s, want %s", p.Severity, wantSev)
			}
			if r.Valid != (wantSev == SeverityWarning && !hasSeverity(r.Problems, SeverityError)) {
				t.Errorf("valid = %v with problems %+v", r.Valid, r.Problems)
			}
		})
	}
}

// Every rule ValidateManifest owns has a positive and a negative case.
func TestRulesAllCovered(t *testing.T) {
	rules := []string{RuleJSONSyntax, RuleSchema, RuleUnknownField, RuleIDFormat, RuleIDDirMismatch,
		RuleVersionSemver, RuleVersionLeadingZero, RuleURLFormat, RuleLicenseURLMissing, RuleDistributionEmpty,
		RuleBinaryOSCoverage, RuleBinaryArchiveHTTPS, RuleBinaryArchiveFormat, RuleBinaryCmdPath, RuleBinaryCmdArgs, RuleBinaryLatest,
		RuleBinaryVersionMismatch, RulePackageLatest, RulePackageVersionMismatch, RulePackageUnpinned, RulePackageName,
		RulePreviewVersion, RulePreviewDistribution, RulePreviewVersionMismatch, RuleEnvReserved, RuleEnvDropped, RuleTextControl, RuleURLCredentials,
		RuleSHA256Format, RulePlaceholder}
	for _, rule := range rules {
		pos, neg := false, false
		for _, tc := range ruleCases {
			if tc.rule == rule {
				pos = pos || tc.want
				neg = neg || !tc.want
			}
		}
		if !pos || !neg {
			t.Errorf("rule %s: positive case %v, negative case %v", rule, pos, neg)
		}
	}
}

// A semantic rule that judged a value replaces the schema's complaint about
// the same value, so contributors read one problem, not two.
func TestSchemaDuplicatesDropped(t *testing.T) {
	src := strings.Replace(baseManifest, `"version": "1.2.3"`, `"version": "1.2"`, 1)
	r := ValidateManifest("demo/agent.json", []byte(src), "demo")
	for _, p := range r.Problems {
		if p.Pointer == "/version" && p.Rule == RuleSchema {
			t.Errorf("schema problem duplicates version-semver: %+v", p)
		}
	}
}

func TestTooLargeManifest(t *testing.T) {
	data := []byte(`{"id": "` + strings.Repeat("a", 1<<20) + `"}`)
	r := ValidateManifest("big/agent.json", data, "big")
	if len(r.Problems) != 1 || r.Problems[0].Rule != RuleJSONSyntax || !strings.Contains(r.Problems[0].Message, "larger than 1 MiB") {
		t.Fatalf("problems: %+v", r.Problems)
	}
}

func TestProblemsSortedByPosition(t *testing.T) {
	src := strings.NewReplacer(`"version": "1.2.3"`, `"version": "1.2"`, `"cmd": "demo.exe"`, `"cmd": "../demo.exe"`, `"license": "MIT",`, `"license": "MIT", "tags": [],`).Replace(baseManifest)
	r := ValidateManifest("demo/agent.json", []byte(src), "demo")
	if len(r.Problems) < 3 {
		t.Fatalf("problems: %+v", r.Problems)
	}
	for i := 1; i < len(r.Problems); i++ {
		a, b := r.Problems[i-1], r.Problems[i]
		if a.Line > b.Line || (a.Line == b.Line && a.Column > b.Column) {
			t.Errorf("%d:%d before %d:%d", a.Line, a.Column, b.Line, b.Column)
		}
	}
}

// The schema fast path agrees with the general validator on every case
// above, the fixtures and the corpus.
func TestConformsFastAgrees(t *testing.T) {
	var docs [][]byte
	for _, tc := range ruleCases {
		docs = append(docs, []byte(tc.source(t)))
	}
	files, _ := filepath.Glob("testdata/tree/*/agent.json")
	if root := corpusRootIfPresent(t); root != "" {
		more, _ := filepath.Glob(filepath.Join(root, "*", "agent.json"))
		files = append(files, more...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b)
	}
	fast := 0
	for _, d := range docs {
		v, _, _, err := jsonpos.Parse(d)
		root, ok := v.(map[string]any)
		if err != nil || !ok {
			continue
		}
		if conformsFast(root) {
			fast++
		}
		if got, want := conformsFast(root), len(schemaFindings(root)) == 0; got != want {
			t.Errorf("conformsFast = %v, schema validator clean = %v for:\n%s", got, want, d)
		}
	}
	if fast == 0 {
		t.Error("the fast path never applied")
	}
}

// A hostile manifest with a huge number of wrong values is reported briefly
// and in linear time.
func TestManyWrongValues(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id": "x", "name": "x", "version": "1.0.0", "description": "d", "distribution": {"npx": {"package": "x@1.0.0", "env": {`)
	for i := 0; i < 20000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"LD_%d": "x"`, i)
	}
	b.WriteString(`}}}, "authors": [`)
	b.WriteString(strings.Repeat("1,", 200000))
	b.WriteString(`1]}`)
	r := ValidateManifest("x/agent.json", []byte(b.String()), "x")
	if n := len(r.Problems); n > maxFileProblems+1 {
		t.Fatalf("%d problems reported", n)
	}
	found, summary := false, false
	for _, p := range r.Problems {
		summary = summary || strings.Contains(p.Message, "more problems in this file are not shown")
		if strings.Contains(p.Message, "schema check was skipped") {
			found = true
		}
		if p.Rule == RuleEnvReserved && p.Line != 1 {
			t.Errorf("env problem not positioned: %+v", p)
		}
	}
	if !found {
		t.Error("schema check not skipped for a bulk document")
	}
	if !summary {
		t.Error("no summary of the problems not shown")
	}
}

func TestTagVersion(t *testing.T) {
	for tag, want := range map[string]string{
		"v1.2.3": "1.2.3", "1.2": "1.2", "2698.3": "2698.3", "v1.18.31.1": "1.18.31.1", "7": "7",
		"cli-v1.2.3": "1.2.3", "pkg@1.2": "1.2", "rust_v0.5.0": "0.5.0", "a-b-1.2.3": "1.2.3",
		"nightly": "", "build-20240101": "", "v1..2": "", "1.2.3-beta": "", "v": "", "": "", "1.2.3.4.5": "",
	} {
		if got := tagVersion(tag); got != want {
			t.Errorf("tagVersion(%q) = %q, want %q", tag, got, want)
		}
	}
}

// Every syntax error jsonpos gets past is a problem of its own.
func TestEverySyntaxErrorReported(t *testing.T) {
	src := "{\n  \"id\": \"x\"\n  \"name\": \"y\",\n  \"authors\": [\"a\",],\n}\n"
	r := ValidateManifest("x/agent.json", []byte(src), "x")
	var got []string
	for _, p := range r.Problems {
		got = append(got, fmt.Sprintf("%d:%d %s", p.Line, p.Column, p.Rule))
	}
	if want := "3:3 json-syntax,4:18 json-syntax,4:20 json-syntax"; strings.Join(got, ",") != want {
		t.Errorf("problems %s, want %s", strings.Join(got, ","), want)
	}
}

// plainURL is a shortcut for url.Parse: wherever it answers, it answers
// the same.
func TestPlainURLAgreesWithURLParse(t *testing.T) {
	for _, s := range []string{
		"https://github.com/a/b/releases/download/v1.2.3/x.tar.gz", "http://example.com", "https://example.com:8443/x?y=1#z",
		"https://example.com/a@b/c", "https://example.com/?q=a:b@c", "https://EXAMPLE.com/X", "https://a.b/#/x?y",
		"https://user@host/", "https://[::1]/x", "https://host:/x", "https://host:x/", "https://h/%41", "https://h/ a",
		"ftp://h/x", "https://", "https:///x", "https://h\\@evil/", "https://h/é", "https://host?x@evil", "https://host#a@b",
	} {
		scheme, host, path, ok := plainURL(s)
		if !ok {
			continue
		}
		u, err := url.Parse(s)
		if err != nil || u.Scheme != scheme || u.Host != host || u.Path != path || u.User != nil {
			t.Errorf("plainURL(%q) = %q %q %q; url.Parse = %+v, %v", s, scheme, host, path, u, err)
		}
	}
	if _, _, _, ok := plainURL("https://user:pw@host/"); ok {
		t.Error("user info must go through url.Parse")
	}
}

// Each repeat of a key is a problem at its own spot, not all at the last
// one (which the JSON pointer alone finds).
func TestDuplicateKeysEachAtItsOwnPosition(t *testing.T) {
	src := strings.Replace(baseManifest, `"name": "Demo Agent",`, "\"name\": \"A\",\n  \"name\": \"B\",\n  \"name\": \"C\",", 1)
	r := ValidateManifest("demo/agent.json", []byte(src), "demo")
	var at []string
	for _, p := range r.Problems {
		if p.Rule == RuleJSONSyntax {
			at = append(at, fmt.Sprintf("%d:%d", p.Line, p.Column))
		}
	}
	var want []string
	for _, v := range []string{`"name": "B"`, `"name": "C"`} {
		line, col := jsonpos.LineCol([]byte(src), strings.Index(src, v))
		want = append(want, fmt.Sprintf("%d:%d", line, col))
	}
	if strings.Join(at, " ") != strings.Join(want, " ") {
		t.Errorf("duplicates at %v, want %v", at, want)
	}
}
