package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// Packument is the npm registry's document for one package.
type Packument struct {
	Name     string                     `json:"name"`
	DistTags map[string]string          `json:"dist-tags"`
	Versions map[string]json.RawMessage `json:"versions"`
	// Time maps versions (and "created", "modified") to RFC 3339 times.
	Time map[string]string `json:"time"`
	// Unpublished is set when the whole package was unpublished (npm then
	// keeps a stub whose "time" holds an object under "unpublished").
	Unpublished bool `json:"-"`
}

// UnmarshalJSON tolerates the non-string entries of "time" (an
// unpublished package's stub), which a map[string]string would reject.
func (p *Packument) UnmarshalJSON(data []byte) error {
	var raw struct {
		Name     string                     `json:"name"`
		DistTags map[string]string          `json:"dist-tags"`
		Versions map[string]json.RawMessage `json:"versions"`
		Time     map[string]json.RawMessage `json:"time"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*p = Packument{Name: raw.Name, DistTags: raw.DistTags, Versions: raw.Versions, Time: map[string]string{}}
	for k, v := range raw.Time {
		var s string
		if json.Unmarshal(v, &s) == nil {
			p.Time[k] = s
		} else if k == "unpublished" {
			p.Unpublished = true
		}
	}
	return nil
}

// PyPIProject is PyPI's JSON API document for one project.
type PyPIProject struct {
	Info     PyPIInfo              `json:"info"`
	Releases map[string][]PyPIFile `json:"releases"`
}

// PyPIInfo is the "info" object; Version is the newest release.
type PyPIInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// PyPIFile is one file of a release.
type PyPIFile struct {
	Yanked bool `json:"yanked"`
	// Filename and Digests.SHA256 say which file and what its bytes are
	// (acp's lock of a uvx agent's version).
	Filename string `json:"filename"`
	Digests  struct {
		SHA256 string `json:"sha256"`
	} `json:"digests"`
}

// NPMPackumentURL is where the registry serves a package's document:
// <registry><name>, with a scope's slash escaped (@scope%2Fname).
func (c *Client) NPMPackumentURL(name string) string {
	return withSlash(c.NPMRegistry, DefaultNPMRegistry) + url.PathEscape(name)
}

// PyPIProjectURL is <pypi>pypi/<normalized name>/json.
func (c *Client) PyPIProjectURL(name string) string {
	return withSlash(c.PyPIURL, DefaultPyPIURL) + "pypi/" + url.PathEscape(registry.NormalizePyPIName(name)) + "/json"
}

func withSlash(base, def string) string {
	if base == "" {
		base = def
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return base
}

// NPMPackument fetches a package's document from the (trusted) npm
// registry. A missing or unpublished package is errors.Is ErrNotFound.
func (c *Client) NPMPackument(ctx context.Context, name string) (*Packument, error) {
	if !registry.ValidNPMName(name) {
		return nil, fmt.Errorf("look up npm package %q: not a valid npm package name", name)
	}
	var p Packument
	u := c.NPMPackumentURL(name)
	if err := c.getJSON(ctx, u, "application/json", &p); err != nil {
		return nil, fmt.Errorf("look up npm package %q: %w", name, err)
	}
	if p.Unpublished && len(p.Versions) == 0 {
		return nil, fmt.Errorf("look up npm package %q: %s: the package was unpublished: %w", name, u, ErrNotFound)
	}
	return &p, nil
}

// PyPIProject fetches a project's document from the (trusted) PyPI JSON
// API. A missing project is errors.Is ErrNotFound.
func (c *Client) PyPIProject(ctx context.Context, name string) (*PyPIProject, error) {
	var p PyPIProject
	if err := c.getJSON(ctx, c.PyPIProjectURL(name), "application/json", &p); err != nil {
		return nil, fmt.Errorf("look up PyPI project %q: %w", name, err)
	}
	return &p, nil
}

// GetJSON GETs a JSON document (an untrusted URL under the https and
// public-address policy unless trusted) and decodes it into v.
func (c *Client) GetJSON(ctx context.Context, rawURL string, trusted Trust, v any) error {
	return c.getJSONAt(ctx, rawURL, trusted, "application/json", v)
}

// getJSON GETs a trusted URL and decodes it while streaming, never
// holding more than MaxDocumentSize of it.
func (c *Client) getJSON(ctx context.Context, rawURL, accept string, v any) error {
	return c.getJSONAt(ctx, rawURL, Trusted, accept, v)
}

func (c *Client) getJSONAt(ctx context.Context, rawURL string, trusted Trust, accept string, v any) error {
	resp, err := c.getAccept(ctx, rawURL, trusted, accept, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	lr := &limitReader{r: resp.Body, n: MaxDocumentSize}
	if err := json.NewDecoder(lr).Decode(v); err != nil {
		if errors.Is(err, ErrTooLarge) {
			return &URLError{URL: rawURL, Err: fmt.Errorf("document is larger than %d MiB: %w", MaxDocumentSize>>20, ErrTooLarge)}
		}
		return &URLError{URL: rawURL, Err: fmt.Errorf("read JSON: %w", err)}
	}
	return nil
}

type limitReader struct {
	r io.Reader
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		// Probe one byte: a body of exactly the limit is fine.
		var b [1]byte
		n, err := l.r.Read(b[:])
		if n > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}
