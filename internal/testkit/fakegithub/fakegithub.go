// Package fakegithub is a fake GitHub releases API on loopback, for the
// tests of acp-registry publish: the publish package's own and the
// command's json_docs script.
package fakegithub

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Server is an in-memory GitHub on loopback with the endpoints
// acp-registry publish uses, for the repository Repo: releases by tag,
// their assets (upload, list with digests, rename, delete, download) and
// tag refs. Tests read and change its state between requests while holding
// its lock (Lock, Unlock); the knobs below make it fail as GitHub can.
type Server struct {
	*httptest.Server
	sync.Mutex

	Token    string              // the valid token (default "good")
	Push     bool                // the token may push (default true)
	Releases map[string]*Release // by tag
	Refs     map[string]string   // tag -> sha
	// FailAfter fails uploads after this many (0: never).
	FailAfter int
	Uploads   int    // successful uploads
	RejectNew string // when set, creating a release answers 422 with this code
	NoDigest  bool   // list assets without "digest", as older GitHub APIs do
	LoopPages bool   // every page of assets says there is a next one
	EvilTag   string // when set, the tag_name every release answers with
	Short     bool   // asset downloads send half their bytes
	Log       []string
	// Missing records every moment a latest-release asset was absent
	// while a request other than its own rename was served.
	Missing []string

	unexpected func(format string, args ...any)
	nextID     int64
	gone       string // a latest asset deleted and not yet replaced
}

// Repo is the one repository the fake serves.
const Repo = "o/r"

// Release is one release of the fake, with its assets by name.
type Release struct {
	ID     int64
	Tag    string
	Latest string
	Assets map[string]*Asset
}

// Asset is one uploaded file.
type Asset struct {
	ID   int64
	Data []byte
}

// New starts the fake; unexpected is told of every request it does not
// know (a test's Errorf). The caller closes it.
func New(unexpected func(format string, args ...any)) *Server {
	f := &Server{unexpected: unexpected, Token: "good", Push: true, Releases: map[string]*Release{}, Refs: map[string]string{}, nextID: 1}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

var (
	reRepo     = regexp.MustCompile(`^/repos/o/r$`)
	reByTag    = regexp.MustCompile(`^/repos/o/r/releases/tags/([^/]+)$`)
	reReleases = regexp.MustCompile(`^/repos/o/r/releases$`)
	reAssets   = regexp.MustCompile(`^/repos/o/r/releases/(\d+)/assets$`)
	reAsset    = regexp.MustCompile(`^/repos/o/r/releases/assets/(\d+)$`)
	reRef      = regexp.MustCompile(`^/repos/o/r/git/refs?/tags/([^/]+)$`)
	reRefs     = regexp.MustCompile(`^/repos/o/r/git/refs$`)
)

func (f *Server) release(w http.ResponseWriter, r *Release) {
	tag := r.Tag
	if f.EvilTag != "" {
		tag = f.EvilTag
	}
	json.NewEncoder(w).Encode(map[string]any{"id": r.ID, "tag_name": tag, "html_url": "https://github.com/o/r/releases/tag/" + tag})
}

func (f *Server) serve(w http.ResponseWriter, r *http.Request) {
	f.Lock()
	defer f.Unlock()
	p := r.URL.Path
	f.Log = append(f.Log, r.Method+" "+p)
	if f.gone != "" && !(r.Method == "PATCH" && reAsset.MatchString(p)) {
		// Only the rename that follows the deletion may see the gap.
		f.Missing = append(f.Missing, f.gone+" during "+r.Method+" "+p)
	}
	if r.Header.Get("Authorization") != "Bearer "+f.Token {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message":"Bad credentials"}`)
		return
	}
	notFound := func() { w.WriteHeader(http.StatusNotFound); fmt.Fprint(w, `{"message":"Not Found"}`) }
	var m []string
	match := func(re *regexp.Regexp) bool { m = re.FindStringSubmatch(p); return m != nil }
	switch {
	case r.Method == "GET" && match(reRepo):
		json.NewEncoder(w).Encode(map[string]any{"full_name": "o/r", "permissions": map[string]bool{"pull": true, "push": f.Push}})
	case r.Method == "GET" && match(reByTag):
		if rel, ok := f.Releases[m[1]]; ok {
			f.release(w, rel)
			return
		}
		notFound()
	case r.Method == "POST" && match(reReleases):
		var req struct {
			Tag        string `json:"tag_name"`
			Target     string `json:"target_commitish"`
			MakeLatest string `json:"make_latest"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if f.RejectNew != "" || f.Releases[req.Tag] != nil {
			code := f.RejectNew
			if code == "" {
				code = "already_exists"
			}
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprintf(w, `{"message":"Validation Failed","errors":[{"resource":"Release","code":%q,"field":"tag_name"}]}`, code)
			return
		}
		if _, ok := f.Refs[req.Tag]; !ok {
			sha := req.Target
			if sha == "" {
				sha = "sha-of-main"
			}
			f.Refs[req.Tag] = sha
		}
		rel := &Release{ID: f.nextID, Tag: req.Tag, Latest: req.MakeLatest, Assets: map[string]*Asset{}}
		f.nextID++
		f.Releases[req.Tag] = rel
		w.WriteHeader(http.StatusCreated)
		f.release(w, rel)
	case r.Method == "GET" && match(reAssets):
		rel := f.byID(m[1])
		if rel == nil {
			notFound()
			return
		}
		var out []map[string]any
		for name, a := range rel.Assets {
			asset := map[string]any{"id": a.ID, "name": name, "size": len(a.Data), "state": "uploaded"}
			if !f.NoDigest {
				asset["digest"] = fmt.Sprintf("sha256:%x", sha256.Sum256(a.Data))
			}
			out = append(out, asset)
		}
		sort.Slice(out, func(i, j int) bool { return out[i]["name"].(string) < out[j]["name"].(string) })
		if f.LoopPages {
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?page=2&per_page=100>; rel="next"`, f.URL, p))
		}
		json.NewEncoder(w).Encode(out)
	case r.Method == "POST" && match(reAssets):
		rel := f.byID(m[1])
		name := r.URL.Query().Get("name")
		if rel == nil || name == "" {
			notFound()
			return
		}
		if rel.Assets[name] != nil {
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprint(w, `{"message":"Validation Failed","errors":[{"code":"already_exists","field":"name"}]}`)
			return
		}
		if f.FailAfter > 0 && f.Uploads >= f.FailAfter {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, `{"message":"upstream went away"}`)
			return
		}
		data, _ := io.ReadAll(r.Body)
		rel.Assets[name] = &Asset{ID: f.nextID, Data: data}
		f.nextID++
		f.Uploads++
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id": %d, "name": %q, "size": %d}`, rel.Assets[name].ID, name, len(data))
	case r.Method == "DELETE" && match(reAsset):
		id, _ := strconv.ParseInt(m[1], 10, 64)
		for _, rel := range f.Releases {
			for name, a := range rel.Assets {
				if a.ID == id {
					delete(rel.Assets, name)
					if rel.Tag == "latest" && !strings.HasSuffix(name, ".next") {
						f.gone = name
					}
					w.WriteHeader(http.StatusNoContent)
					return
				}
			}
		}
		notFound()
	case r.Method == "GET" && match(reAsset):
		if a, _ := f.asset(m[1]); a != nil {
			w.Header().Set("Content-Type", "application/octet-stream")
			if f.Short {
				w.Write(a.Data[:len(a.Data)/2])
				return
			}
			w.Write(a.Data)
			return
		}
		notFound()
	case r.Method == "PATCH" && match(reAsset):
		var req struct{ Name string }
		json.NewDecoder(r.Body).Decode(&req)
		a, rel := f.asset(m[1])
		if a == nil || req.Name == "" || rel.Assets[req.Name] != nil {
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprint(w, `{"message":"Validation Failed"}`)
			return
		}
		for name, x := range rel.Assets {
			if x == a {
				delete(rel.Assets, name)
			}
		}
		rel.Assets[req.Name] = a
		if f.gone == req.Name {
			f.gone = ""
		}
		fmt.Fprintf(w, `{"id": %d, "name": %q, "size": %d}`, a.ID, req.Name, len(a.Data))
	case r.Method == "GET" && match(reRef):
		if sha, ok := f.Refs[m[1]]; ok {
			fmt.Fprintf(w, `{"ref": "refs/tags/%s", "object": {"sha": %q, "type": "commit"}}`, m[1], sha)
			return
		}
		notFound()
	case r.Method == "PATCH" && match(reRef):
		var req struct{ SHA string }
		json.NewDecoder(r.Body).Decode(&req)
		f.Refs[m[1]] = req.SHA
		fmt.Fprintf(w, `{"ref": "refs/tags/%s", "object": {"sha": %q}}`, m[1], req.SHA)
	case r.Method == "POST" && match(reRefs):
		var req struct{ Ref, SHA string }
		json.NewDecoder(r.Body).Decode(&req)
		f.Refs[strings.TrimPrefix(req.Ref, "refs/tags/")] = req.SHA
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"ref": %q, "object": {"sha": %q}}`, req.Ref, req.SHA)
	default:
		f.unexpected("unexpected request %s %s", r.Method, p)
		notFound()
	}
}

func (f *Server) asset(s string) (*Asset, *Release) {
	id, _ := strconv.ParseInt(s, 10, 64)
	for _, rel := range f.Releases {
		for _, a := range rel.Assets {
			if a.ID == id {
				return a, rel
			}
		}
	}
	return nil, nil
}

func (f *Server) byID(s string) *Release {
	id, _ := strconv.ParseInt(s, 10, 64)
	for _, r := range f.Releases {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// AssetNames are the names of tag's assets, sorted.
func (f *Server) AssetNames(tag string) []string {
	f.Lock()
	defer f.Unlock()
	var n []string
	if rel := f.Releases[tag]; rel != nil {
		for name := range rel.Assets {
			n = append(n, name)
		}
	}
	sort.Strings(n)
	return n
}

// UploadCount is how many uploads succeeded.
func (f *Server) UploadCount() int {
	f.Lock()
	defer f.Unlock()
	return f.Uploads
}
