package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v89/github"

	"github.com/agentclientprotocol/acp-registry-go/cmd/acp-registry/internal/githubapi"
	"github.com/agentclientprotocol/acp-registry-go/internal/remote"
	"github.com/agentclientprotocol/acp-registry-go/internal/safetext"
)

// LatestTag is the tag of the rolling release.
const LatestTag = "latest"

// Options configure Publish.
type Options struct {
	Dir   string // flat folder of files to upload
	Repo  string // OWNER/NAME
	Tag   string // default: vYYYY.MM.DD-<short commit>
	Token string // must be able to push to Repo
	// Target is the commit (full SHA or branch) a new tag is created at;
	// empty: the repository's default branch.
	Target string
	// Latest also moves the `latest` release to this build.
	Latest bool

	GitHub *github.Client
	// ShortCommit names the commit in the default tag; default: git
	// rev-parse --short HEAD.
	ShortCommit func(ctx context.Context) (string, error)
	Now         func() time.Time
	Log         io.Writer // progress, one line per step
}

// Result says what a publish did.
type Result struct {
	Tag      string   `json:"tag"`
	URL      string   `json:"url"`
	Created  bool     `json:"created"`  // false: an existing release was completed
	Uploaded []string `json:"uploaded"` // assets uploaded (or replaced)
	Kept     []string `json:"kept"`     // assets already there with the right size
	Latest   bool     `json:"latest"`   // the latest release was updated
	// LatestUploaded are the assets of the latest release that changed.
	LatestUploaded []string `json:"latestUploaded"`
}

var tagRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// GitShortCommit runs git rev-parse --short HEAD in the current folder.
func GitShortCommit(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		// git's own sentence ("not a git repository") says more than
		// "exit status 128".
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(ee.Stderr)), "fatal: ")); msg != "" {
				err = errors.New(firstLine(msg))
			}
		}
		return "", fmt.Errorf("name the commit for the default tag (git rev-parse --short HEAD): %v: run in the registry's git checkout, or pass --tag", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// CheckTag refuses a tag GitHub or the rolling release cannot take.
func CheckTag(tag string) error {
	if !tagRe.MatchString(tag) || tag == LatestTag {
		return fmt.Errorf("tag %q: use letters, digits, . _ - (and not %q, the rolling release)", tag, LatestTag)
	}
	return nil
}

// DefaultTag is vYYYY.MM.DD-<short commit>, in UTC.
func DefaultTag(now time.Time, short string) string {
	return "v" + now.UTC().Format("2006.01.02") + "-" + short
}

// Publish checks the token and the tag, then creates or completes the
// release and, with Latest, moves the latest release.
func Publish(ctx context.Context, o Options) (*Result, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	owner, repo, ok := strings.Cut(o.Repo, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return nil, fmt.Errorf("--repo %q: write OWNER/NAME", o.Repo)
	}
	files, err := listFiles(o.Dir)
	if err != nil {
		return nil, err
	}
	if o.Token == "" {
		// Before the tag: naming the commit can fail too, and the token is
		// what a first run most often lacks.
		return nil, fmt.Errorf("publish to %s: %w: set GITHUB_TOKEN to a token with contents: write on the repository", o.Repo, ErrNoToken)
	}
	if o.Tag == "" {
		short := GitShortCommit
		if o.ShortCommit != nil {
			short = o.ShortCommit
		}
		c, err := short(ctx)
		if err != nil {
			return nil, err
		}
		now := time.Now
		if o.Now != nil {
			now = o.Now
		}
		o.Tag = DefaultTag(now(), c)
	}
	if err := CheckTag(o.Tag); err != nil {
		return nil, err
	}
	p := &publisher{Options: o, owner: owner, repo: repo}
	if err := p.preflight(ctx); err != nil {
		return nil, err
	}
	rel, created, err := p.release(ctx)
	if err != nil {
		return nil, err
	}
	res := &Result{Tag: o.Tag, URL: rel.GetHTMLURL(), Created: created, Uploaded: []string{}, Kept: []string{}, LatestUploaded: []string{}}
	if err := p.sync(ctx, rel, files, keepOthers, res); err != nil {
		return res, err
	}
	if o.Latest {
		if err := p.latest(ctx, files); err != nil {
			return res, err
		}
		res.Latest = true
		res.LatestUploaded = append([]string{}, p.latestUploaded...)
	}
	return res, nil
}

type publisher struct {
	Options
	owner, repo    string
	latestUploaded []string
}

func (p *publisher) where() string { return p.owner + "/" + p.repo }

func status(resp *github.Response) int {
	if resp == nil || resp.Response == nil {
		return 0
	}
	return resp.StatusCode
}

// preflight proves the token can write before anything is created.
func (p *publisher) preflight(ctx context.Context) error {
	if p.Token == "" {
		return fmt.Errorf("publish to %s: %w: set GITHUB_TOKEN to a token with contents: write on the repository", p.where(), ErrNoToken)
	}
	r, resp, err := p.GitHub.Repositories.Get(ctx, p.owner, p.repo)
	switch status(resp) {
	case http.StatusUnauthorized:
		return fmt.Errorf("check access to %s: GitHub refused GITHUB_TOKEN (401 Bad credentials): %w: the token is invalid or expired; create a new one", p.where(), ErrPermission)
	case http.StatusNotFound:
		return fmt.Errorf("check access to %s: repository not found, or GITHUB_TOKEN cannot see it: %w", p.where(), ErrPermission)
	}
	if err != nil {
		if status(resp) == 0 {
			// No HTTP answer at all: offline, DNS, a proxy, a wrong URL.
			return fmt.Errorf("check access to %s: %w: nothing was uploaded; check the network (and --github-api-url), then run again", p.where(), err)
		}
		return fmt.Errorf("check access to %s: %w", p.where(), err)
	}
	if !r.GetPermissions().GetPush() {
		return fmt.Errorf("check access to %s: GITHUB_TOKEN cannot push to it: %w: give the token contents: write (in Actions: permissions: contents: write)", p.where(), ErrPermission)
	}
	return nil
}

// release returns the release of the tag, creating it unless a previous
// run already did. A tag without a release is someone else's: refused.
func (p *publisher) release(ctx context.Context) (*github.RepositoryRelease, bool, error) {
	rel, resp, err := p.GitHub.Repositories.GetReleaseByTag(ctx, p.owner, p.repo, p.Tag)
	if err == nil {
		fmt.Fprintf(p.Log, "release %s exists: completing it\n", p.Tag)
		return rel, false, nil
	}
	if status(resp) != http.StatusNotFound {
		return nil, false, fmt.Errorf("look up release %s of %s: %w", p.Tag, p.where(), err)
	}
	_, resp, err = p.GitHub.Git.GetRef(ctx, p.owner, p.repo, "tags/"+p.Tag)
	if err == nil {
		return nil, false, fmt.Errorf("publish %s to %s: %w without a release: choose another --tag or delete the tag", p.Tag, p.where(), ErrTagTaken)
	}
	if status(resp) != http.StatusNotFound {
		return nil, false, fmt.Errorf("look up tag %s of %s: %w", p.Tag, p.where(), err)
	}
	return p.create(ctx, p.Tag, "true")
}

func (p *publisher) create(ctx context.Context, tag, makeLatest string) (*github.RepositoryRelease, bool, error) {
	req := github.CreateReleaseRequest{
		TagName:    tag,
		Name:       github.Ptr(tag),
		Body:       github.Ptr("ACP registry build " + tag + "."),
		MakeLatest: github.Ptr(makeLatest),
	}
	if p.Target != "" {
		req.TargetCommitish = github.Ptr(p.Target)
	}
	rel, resp, err := p.GitHub.Repositories.CreateRelease(ctx, p.owner, p.repo, req)
	if err != nil {
		if status(resp) == http.StatusUnprocessableEntity {
			return nil, false, fmt.Errorf("create release %s of %s: GitHub rejected it (422): %s: check that the tag is free and the target commit exists", tag, p.where(), describeGitHubError(err))
		}
		return nil, false, fmt.Errorf("create release %s of %s: %w", tag, p.where(), err)
	}
	fmt.Fprintf(p.Log, "created release %s\n", tag)
	return rel, true, nil
}

func describeGitHubError(err error) string {
	var ge *github.ErrorResponse
	if !errors.As(err, &ge) {
		return err.Error()
	}
	parts := []string{ge.Message}
	for _, e := range ge.Errors {
		d := e.Code
		if e.Field != "" {
			d = e.Field + " " + d
		}
		if e.Message != "" {
			d += " (" + e.Message + ")"
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, "; ")
}

// maxAssetPages is the most pages of 100 assets a release is listed in:
// GitHub holds at most 1,000 assets per release, so an API whose pages go
// on is not GitHub's, and is not followed until the job's time limit.
const maxAssetPages = 10

func (p *publisher) assets(ctx context.Context, id int64) (map[string]*github.ReleaseAsset, error) {
	all := map[string]*github.ReleaseAsset{}
	opt := &github.ListOptions{PerPage: 100}
	for page := 1; ; page++ {
		if page > maxAssetPages {
			return nil, fmt.Errorf("list assets of release %d: the API gave more than %d pages of 100 (GitHub holds at most 1,000 assets per release)", id, maxAssetPages)
		}
		as, resp, err := p.GitHub.Repositories.ListReleaseAssets(ctx, p.owner, p.repo, id, opt)
		if err != nil {
			return nil, fmt.Errorf("list assets of release %d: %w", id, err)
		}
		for _, a := range as {
			all[a.GetName()] = a
		}
		if resp.NextPage == 0 {
			return all, nil
		}
		opt.Page = resp.NextPage
	}
}

// sync makes the release's assets match files, uploading only what
// differs: an asset whose sha256 (GitHub's digest, or the downloaded bytes
// where the API gives none) equals the file's is kept. A changed asset is
// replaced without a gap longer than one request: the new copy is uploaded
// beside it under a temporary name, then the old one is deleted and the
// new one renamed. Assets that are not in files are deleted last with
// pruneOthers.
func (p *publisher) sync(ctx context.Context, rel *github.RepositoryRelease, files []file, others otherAssets, res *Result) error {
	have, err := p.assets(ctx, rel.GetID())
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, f := range files {
		want[f.name] = true
	}
	for _, f := range files {
		a, ok := have[f.name]
		if ok && (a.GetState() == "" || a.GetState() == "uploaded") {
			same, err := p.same(ctx, a, f)
			if err != nil {
				return fmt.Errorf("compare %s with the asset of release %s: %w", f.name, rel.GetTagName(), err)
			}
			if same {
				if res != nil {
					res.Kept = append(res.Kept, f.name)
				}
				continue
			}
		}
		if err := p.replace(ctx, rel, f, a, have[tempName(f.name)]); err != nil {
			return err
		}
		delete(have, tempName(f.name))
		if res != nil {
			res.Uploaded = append(res.Uploaded, f.name)
		}
	}
	for name, a := range have {
		// Temporary copies of an interrupted run go in any case.
		if want[name] || (others == keepOthers && !isTempName(name, want)) {
			continue
		}
		if _, err := p.GitHub.Repositories.DeleteReleaseAsset(ctx, p.owner, p.repo, a.GetID()); err != nil {
			return fmt.Errorf("remove %s from release %s: %w", name, rel.GetTagName(), err)
		}
	}
	return nil
}

// otherAssets is what sync does with a release's assets that are not
// among the files it publishes.
type otherAssets int

const (
	keepOthers  otherAssets = iota // a versioned release keeps what was added beside a publish
	pruneOthers                    // the latest release holds exactly one publish's files
)

// tempName is where a new copy of name is uploaded before it replaces
// the old one: a plain asset name (GitHub keeps it as it is).
func tempName(name string) string { return name + ".next" }

func isTempName(name string, files map[string]bool) bool {
	base, ok := strings.CutSuffix(name, ".next")
	return ok && files[base]
}

// replace puts f in place of old (nil: there is none). An asset that is
// not complete (an interrupted upload) cannot be served, so it is simply
// replaced; a served one stays until its successor is uploaded.
func (p *publisher) replace(ctx context.Context, rel *github.RepositoryRelease, f file, old, staleTemp *github.ReleaseAsset) error {
	if old == nil || (old.GetState() != "" && old.GetState() != "uploaded") {
		if old != nil {
			if _, err := p.GitHub.Repositories.DeleteReleaseAsset(ctx, p.owner, p.repo, old.GetID()); err != nil {
				return fmt.Errorf("replace %s in release %s: delete the incomplete asset: %w", f.name, rel.GetTagName(), err)
			}
		}
		_, err := p.upload(ctx, rel, f, f.name)
		return err
	}
	if staleTemp != nil {
		if _, err := p.GitHub.Repositories.DeleteReleaseAsset(ctx, p.owner, p.repo, staleTemp.GetID()); err != nil {
			return fmt.Errorf("replace %s in release %s: delete %s left by an earlier run: %w", f.name, rel.GetTagName(), staleTemp.GetName(), err)
		}
	}
	next, err := p.upload(ctx, rel, f, tempName(f.name))
	if err != nil {
		return err
	}
	if _, err := p.GitHub.Repositories.DeleteReleaseAsset(ctx, p.owner, p.repo, old.GetID()); err != nil {
		return fmt.Errorf("replace %s in release %s: delete the old asset: %w", f.name, rel.GetTagName(), err)
	}
	if _, _, err := p.GitHub.Repositories.UpdateReleaseAsset(ctx, p.owner, p.repo, next.GetID(), github.UpdateReleaseAssetRequest{Name: github.Ptr(f.name)}); err != nil {
		return fmt.Errorf("replace %s in release %s: rename %s: %w; run publish again to complete the release", f.name, rel.GetTagName(), tempName(f.name), err)
	}
	return nil
}

// assetClient follows an asset's redirect to its storage without the
// token (go-github sends none on that hop) and within a bound: a host
// that drips its bytes must not hold the release job until its limit.
var assetClient = remote.NewHTTPClient(nil, 10*time.Minute, nil)

// same reports whether asset a holds exactly f's bytes.
func (p *publisher) same(ctx context.Context, a *github.ReleaseAsset, f file) (bool, error) {
	if int64(a.GetSize()) != f.size {
		return false, nil
	}
	if d := a.GetDigest(); d != "" {
		return strings.EqualFold(d, "sha256:"+f.sha256), nil
	}
	// An API without digests: the bytes decide.
	rc, _, err := p.GitHub.Repositories.DownloadReleaseAsset(ctx, p.owner, p.repo, a.GetID(), assetClient)
	if err != nil {
		return false, err
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(rc, f.size+1))
	if err == nil && n <= f.size {
		// Bytes cut short are no verdict on the asset.
		err = remote.EndOfBody(ctx, n, f.size)
	}
	if err != nil {
		return false, fmt.Errorf("download asset %s: %w", safetext.Terminal(a.GetName()), err)
	}
	return hex.EncodeToString(h.Sum(nil)) == f.sha256, nil
}

func (p *publisher) upload(ctx context.Context, rel *github.RepositoryRelease, f file, name string) (*github.ReleaseAsset, error) {
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("upload %s: %w", f.path, err)
	}
	defer fh.Close()
	opts := &github.UploadOptions{Name: name}
	if strings.HasSuffix(f.name, ".json") {
		opts.MediaType = "application/json"
	} else if strings.HasSuffix(f.name, ".svg") {
		opts.MediaType = "image/svg+xml"
	}
	asset, _, err := p.GitHub.Repositories.UploadReleaseAsset(ctx, p.owner, p.repo, rel.GetID(), opts, fh)
	if err != nil {
		return nil, fmt.Errorf("upload %s to release %s: %w; run publish again to complete the release", f.name, rel.GetTagName(), err)
	}
	fmt.Fprintf(p.Log, "uploaded %s to %s\n", f.name, safetext.Terminal(rel.GetTagName())) // the API's words
	return asset, nil
}

// latest points the latest tag at the dated tag's commit and replaces the
// latest release's assets.
func (p *publisher) latest(ctx context.Context, files []file) error {
	ref, _, err := p.GitHub.Git.GetRef(ctx, p.owner, p.repo, "tags/"+p.Tag)
	if err != nil {
		return fmt.Errorf("update the latest release: look up tag %s: %w", p.Tag, err)
	}
	sha := ref.GetObject().GetSHA()
	cur, resp, err := p.GitHub.Git.GetRef(ctx, p.owner, p.repo, "tags/"+LatestTag)
	switch {
	case err == nil && cur.GetObject().GetSHA() == sha:
		// Already there: moving a tag to where it is changes nothing.
	case err == nil:
		_, _, err = p.GitHub.Git.UpdateRef(ctx, p.owner, p.repo, "tags/"+LatestTag, github.UpdateRef{SHA: sha, Force: github.Ptr(true)})
	case status(resp) == http.StatusNotFound:
		_, _, err = p.GitHub.Git.CreateRef(ctx, p.owner, p.repo, github.CreateRef{Ref: "refs/tags/" + LatestTag, SHA: sha})
	}
	if err != nil {
		return fmt.Errorf("update the latest release: move tag %s: %w", LatestTag, err)
	}
	rel, resp, err := p.GitHub.Repositories.GetReleaseByTag(ctx, p.owner, p.repo, LatestTag)
	if status(resp) == http.StatusNotFound {
		rel, _, err = p.create(ctx, LatestTag, "false")
	}
	if err != nil {
		return fmt.Errorf("update the latest release: %w", err)
	}
	var lr Result
	if err := p.sync(ctx, rel, files, pruneOthers, &lr); err != nil {
		return fmt.Errorf("update the latest release: %w", err)
	}
	p.latestUploaded = lr.Uploaded
	fmt.Fprintf(p.Log, "release %s now holds %s\n", LatestTag, p.Tag)
	return nil
}

type file struct {
	name, path string
	size       int64
	sha256     string // hex
}

// listFiles lists the regular files of a flat folder, sorted.
func listFiles(dir string) ([]file, error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("%s is a file: pass the folder acp-registry build wrote (e.g. dist)", dir)
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: run acp-registry build first, or pass the folder it wrote", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	var files []file
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file: publish uploads a flat folder of files, as build writes it", path)
		}
		if !plainAssetName(e.Name()) {
			return nil, fmt.Errorf("%s: publish uploads only files named with letters, digits, '.', '_' and '-', not starting or ending with '.', as build writes them: GitHub would upload it under another name (and a later run could not find it), and a hidden file is rarely meant to be public; remove it", path)
		}
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		sum, err := fileSHA256(path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		files = append(files, file{name: e.Name(), path: path, size: info.Size(), sha256: sum})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s is empty: nothing to publish (run acp-registry build first)", dir)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// plainAssetName reports whether GitHub keeps name as it is for a release
// asset: it renames names with other characters, or a leading or trailing
// dot, and the asset would then never match its file again.
func plainAssetName(name string) bool {
	if name == "" || name[0] == '.' || name[len(name)-1] == '.' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// NewClient returns a go-github client for baseURL (empty: api.github.com)
// with token; see githubapi.Client.
func NewClient(hc *http.Client, baseURL, token string) (*github.Client, error) {
	return githubapi.Client(hc, baseURL, token)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
