package testkit

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// NpmPackage is one version of a package a fake npm registry serves.
// Files are its contents (path inside the package -> text), package.json
// among them; what package.json says (bin, engines, os, scripts) is also
// the version's entry in the packument, where npm reads it.
type NpmPackage struct {
	Files map[string]string
	// Published is the version's date in the packument's "time" (npm's
	// before and min-release-age read it).
	Published time.Time
}

// NpmRegistry is a loopback npm registry that real npm installs from
// (npm_config_registry=URL): packuments and tarballs with their
// integrity.
type NpmRegistry struct {
	*httptest.Server
	mu       sync.Mutex
	docs     map[string][]byte // "/name" -> packument
	tarballs map[string][]byte // "/name/-/name-1.0.0.tgz" -> tgz
}

// NewNpmRegistry serves the given packages (all versions of one name in
// one packument, the newest by Published as latest).
func NewNpmRegistry(t testing.TB, pkgs ...NpmPackage) *NpmRegistry {
	t.Helper()
	r := &NpmRegistry{docs: map[string][]byte{}, tarballs: map[string][]byte{}}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	type ver struct {
		meta map[string]any
		at   time.Time
	}
	byName := map[string][]ver{}
	for _, p := range pkgs {
		var meta map[string]any
		if err := json.Unmarshal([]byte(p.Files["package.json"]), &meta); err != nil {
			t.Fatalf("npm registry: package.json: %v", err)
		}
		name, _ := meta["name"].(string)
		version, _ := meta["version"].(string)
		tgz := npmTarball(t, p.Files)
		sha := sha512.Sum512(tgz)
		sha1sum := sha1.Sum(tgz)
		file := "/" + name + "/-/" + name[strings.LastIndex(name, "/")+1:] + "-" + version + ".tgz"
		r.tarballs[file] = tgz
		meta["dist"] = map[string]any{
			"tarball":   r.URL + file,
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sha[:]),
			"shasum":    hex.EncodeToString(sha1sum[:]),
		}
		if s, ok := meta["scripts"].(map[string]any); ok && (s["install"] != nil || s["postinstall"] != nil || s["preinstall"] != nil) {
			meta["hasInstallScript"] = true
		}
		byName[name] = append(byName[name], ver{meta, p.Published.UTC()})
	}
	for name, vs := range byName {
		sort.Slice(vs, func(i, j int) bool { return vs[i].at.Before(vs[j].at) })
		versions, times := map[string]any{}, map[string]string{}
		for _, v := range vs {
			version := v.meta["version"].(string)
			versions[version] = v.meta
			times[version] = v.at.Format(time.RFC3339Nano)
		}
		times["created"] = vs[0].at.Format(time.RFC3339Nano)
		times["modified"] = vs[len(vs)-1].at.Format(time.RFC3339Nano)
		doc, _ := json.Marshal(map[string]any{
			"name":      name,
			"dist-tags": map[string]string{"latest": vs[len(vs)-1].meta["version"].(string)},
			"versions":  versions,
			"time":      times,
			"modified":  times["modified"],
		})
		r.docs["/"+name] = doc
	}
	return r
}

func (r *NpmRegistry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	p, _ := url.PathUnescape(req.URL.EscapedPath())
	doc, isDoc := r.docs[p]
	tgz, isTgz := r.tarballs[p]
	r.mu.Unlock()
	switch {
	case isDoc:
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc)
	case isTgz:
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(tgz)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"Not found"}`))
	}
}

// npmTarball packs files under package/, as npm pack does.
func npmTarball(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		body := files[n]
		mode := int64(0o644)
		if strings.HasPrefix(body, "#!") {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + n, Mode: mode, Size: int64(len(body)), Typeflag: tar.TypeReg, ModTime: time.Date(1985, 10, 26, 8, 15, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}
