package runtimes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/installer/internal/kinds"
)

// normalizeBins reads package.json's "bin" as npm does (its package-bin
// normalisation): a string is one executable named after the package, an
// array names each by its file's base name, an object maps names to files.
// A name is reduced to its last path element ("@x/y" and "../../y" are
// "y"); a target is resolved against the package's root, so "../dist/x.js"
// is "dist/x.js" and nothing written there can leave the package. Entries
// that end up empty, or whose target is not a string, are dropped, as npm
// drops them.
func normalizeBins(pkgName string, raw json.RawMessage) map[string]string {
	var one string
	var list []any
	var obj map[string]any
	named := map[string]any{}
	switch {
	case json.Unmarshal(raw, &one) == nil:
		if pkgName != "" {
			named[pkgName] = one
		}
	case json.Unmarshal(raw, &list) == nil:
		for _, v := range list {
			if s, ok := v.(string); ok {
				named[path.Base(strings.ReplaceAll(s, "\\", "/"))] = s
			}
		}
	case json.Unmarshal(raw, &obj) == nil:
		named = obj
	}
	out := map[string]string{}
	for k, v := range named {
		target, ok := v.(string)
		if !ok {
			continue
		}
		name := rooted(path.Base(strings.NewReplacer("\\", "/", ":", "/").Replace(k)))
		rel := rooted(strings.ReplaceAll(target, "\\", "/"))
		if name == "" || rel == "" {
			continue
		}
		out[name] = rel
	}
	return out
}

// rooted is p resolved against "/", without the leading slash: what
// npm's join('/', p).slice(1) gives ("" for ".", "..", "./").
func rooted(p string) string {
	return strings.TrimPrefix(path.Clean("/"+p), "/")
}

// Launcher says what starts a package's executable.
type Launcher string

const (
	// LaunchNode: node runs the script (a JavaScript file, or a "#!"
	// naming node); Command is the node of the receipt's Runtime.
	LaunchNode Launcher = "node"
	// LaunchInterpreter: the program its "#!" names, resolved to an
	// absolute path at install, runs the script.
	LaunchInterpreter Launcher = "interpreter"
	// LaunchNative: the file is a native executable and runs as itself.
	LaunchNative Launcher = "native"
)

// Bin is how to start one package executable, decided from the file as
// it is after npm's install scripts ran (they may replace a JavaScript
// shim with a native build, or link it to one).
type Bin struct {
	// Rel is the file, relative to the package's folder, after links.
	Rel      string
	Launcher Launcher
	// Program is the interpreter (LaunchInterpreter only).
	Program string
	// Args come before the script: node's options or the interpreter's
	// arguments written on the "#!" line.
	Args []string
}

// Launch is the command and arguments that start b from the package in
// pkgDir, with node for LaunchNode. It is the one place a bin becomes a
// launch: install, resolve (and so run, probe, login, verify) use it.
func (b Bin) Launch(pkgDir, node string) (string, []string) {
	script := filepath.Join(pkgDir, b.Rel)
	switch b.Launcher {
	case LaunchNative:
		return script, nil
	case LaunchInterpreter:
		return b.Program, append(append([]string{}, b.Args...), script)
	}
	return node, append(append([]string{}, b.Args...), script)
}

// ClassifyBin follows rel (a normalised bin path) inside the package in
// pkgDir through any links that stay inside it and decides how to start
// the file it reaches.
func (h *Host) ClassifyBin(pkg, name, pkgDir, rel string) (Bin, error) {
	notFile := kinds.Errorf(kinds.ErrCmdMissing, "package %s: its executable %s (%s) is not a file in the package", pkg, name, rel)
	root, err := filepath.EvalSymlinks(pkgDir)
	if err != nil {
		return Bin{}, notFile
	}
	real, err := filepath.EvalSymlinks(filepath.Join(pkgDir, filepath.FromSlash(rel)))
	if err != nil {
		return Bin{}, notFile
	}
	inside, err := filepath.Rel(root, real)
	if err != nil || !filepath.IsLocal(inside) {
		return Bin{}, kinds.Errorf(kinds.ErrCmdMissing, "package %s: its executable %s (%s) links outside the package (to %s): npm would run a file that is not the package's; ask its authors to ship the file inside the package", pkg, name, rel, real)
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return Bin{}, notFile
	}
	head, err := readHead(real)
	if err != nil {
		return Bin{}, fmt.Errorf("package %s: read its executable %s: %w", pkg, rel, err)
	}
	b := Bin{Rel: inside, Launcher: LaunchNode}
	if nativeMagic(head) {
		b.Launcher = LaunchNative
		return b, nil
	}
	prog, args, ok := shebang(head)
	if !ok || isNode(prog) {
		b.Args = args
		return b, nil
	}
	p, err := h.interpreterPath(prog)
	if err != nil {
		return Bin{}, kinds.Errorf(kinds.ErrRunnerMissing, "package %s: its executable %s starts with \"#!%s\", and %s was not found: install it, or ask the package's authors for a node script", pkg, rel, prog, prog)
	}
	b.Launcher, b.Program, b.Args = LaunchInterpreter, p, args
	return b, nil
}

// interpreterPath resolves a "#!" program to an absolute path: as written
// when it exists (a POSIX system), else its name looked up on PATH, as
// npm's Windows shim does (an editor's PATH may lack it later: the
// install records the path found now).
func (h *Host) interpreterPath(prog string) (string, error) {
	if runtime.GOOS != "windows" && filepath.IsAbs(prog) {
		if fi, err := os.Stat(prog); err == nil && fi.Mode().IsRegular() {
			return prog, nil
		}
	}
	p, err := h.PathLookup(path.Base(strings.ReplaceAll(prog, "\\", "/")))
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}

func readHead(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 1024)
	n, _ := f.Read(head)
	return head[:n], nil
}

// nativeMagic recognises ELF, Mach-O (thin and universal) and PE files.
func nativeMagic(b []byte) bool {
	for _, m := range [][]byte{
		{0x7f, 'E', 'L', 'F'},
		{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
		{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
		{0xca, 0xfe, 0xba, 0xbe},
		{'M', 'Z'},
	} {
		if bytes.HasPrefix(b, m) {
			return true
		}
	}
	return false
}

// shebang reads a "#!" line as npm's Windows shim does: "/usr/bin/env"
// (with -S and VAR=value settings) names the program; the words after it
// are its arguments.
func shebang(head []byte) (prog string, args []string, ok bool) {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(head, []byte("#!")) {
		return "", nil, false
	}
	line, _, _ := bytes.Cut(head[2:], []byte("\n"))
	f := strings.Fields(strings.TrimRight(string(line), "\r"))
	if len(f) > 0 && path.Base(f[0]) == "env" {
		f = f[1:]
		for len(f) > 0 && (strings.HasPrefix(f[0], "-") || strings.Contains(f[0], "=")) {
			f = f[1:]
		}
	}
	if len(f) == 0 {
		return "", nil, false
	}
	return f[0], f[1:], true
}

func isNode(prog string) bool {
	base := strings.TrimSuffix(strings.ToLower(path.Base(strings.ReplaceAll(prog, "\\", "/"))), ".exe")
	return base == "node" || base == "nodejs"
}
