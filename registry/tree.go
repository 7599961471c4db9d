package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/jsonpos"
)

// Agent files have fixed names inside an agent folder.
const (
	ManifestFile = "agent.json"
	IconFile     = "icon.svg"
)

// MaxManifestSize bounds how much of an agent.json is read; real manifests
// are a few KiB, and a hostile 100 MB one must not be slurped.
const MaxManifestSize = 1 << 20

// AgentDir is one folder of a registry tree.
type AgentDir struct {
	Name string // folder name, which must equal the manifest id
	Dir  string // path as given by the caller joined with Name
	Link bool   // the folder is a symbolic link (it may lead out of the root)
}

// ManifestPath is Dir/agent.json.
func (a AgentDir) ManifestPath() string { return filepath.Join(a.Dir, ManifestFile) }

// IconPath is Dir/icon.svg.
func (a AgentDir) IconPath() string { return filepath.Join(a.Dir, IconFile) }

// FeedSourcesDir is the folder of release feed descriptions at a registry
// root (custom_agent_sources/<id>.json, read by update, judged by validate).
const FeedSourcesDir = "custom_agent_sources"

// Skipped reports folder names that are never agents: hidden, parked
// ("_not_yet_unsupported"), build output, and the feed descriptions.
func Skipped(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "dist" || name == FeedSourcesDir
}

// ScanRoot lists the agent folders directly under root, sorted by name.
// Folders without agent.json are returned too: whether that is a problem is
// the caller's call.
func ScanRoot(root string) ([]AgentDir, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("read registry folder %s: %w", root, err)
	}
	var dirs []AgentDir
	for _, e := range entries {
		if Skipped(e.Name()) {
			continue
		}
		isDir := e.IsDir()
		link := e.Type()&fs.ModeSymlink != 0
		if link {
			if st, err := os.Stat(filepath.Join(root, e.Name())); err == nil {
				isDir = st.IsDir()
			}
		}
		if !isDir {
			continue
		}
		dirs = append(dirs, AgentDir{Name: e.Name(), Dir: filepath.Join(root, e.Name()), Link: link})
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].Name < dirs[j].Name })
	return dirs, nil
}

// ReadLimited reads at most limit bytes of path; a larger file is an error
// that says how large it is, so callers can report it without reading it.
func ReadLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, path, limit)
}

// TooLargeError is returned by ReadLimited and ReadRegular.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d KiB", e.Path, e.Limit>>10)
}

// DecodeManifest decodes agent.json strictly enough for tools that consume
// an already validated registry: syntax errors and wrong types fail, unknown
// fields are ignored.
func DecodeManifest(data []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the JSON object")
	}
	return &m, nil
}

// IndexVersion is the registry.json format version this module writes.
const IndexVersion = "1.0.0"

// Find returns the agent with the given id.
func (x *Index) Find(id string) (*Manifest, bool) {
	for i := range x.Agents {
		if x.Agents[i].ID == id {
			return &x.Agents[i], true
		}
	}
	return nil, false
}

// DecodeProblem explains why DecodeManifest refused data, for a message
// that names the file: where (1-based line and column; 0, 0 when not
// known) and what is wrong, in words and with the field as a path
// ("authors must be a list of strings; found an object").
func DecodeProblem(data []byte, err error) (line, col int, msg string) {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		if _, _, _, perr := jsonpos.Parse(data); perr != nil {
			line, col = jsonpos.LineCol(data, perr.Off)
			return line, col, "the JSON is broken here: " + perr.Msg
		}
		line, col = jsonpos.LineCol(data, int(se.Offset))
		return line, col, "the JSON is broken here: " + se.Error()
	case errors.As(err, &te):
		line, col = jsonpos.LineCol(data, int(max(te.Offset-1, 0)))
		field := strings.ReplaceAll(te.Field, ".", "/")
		want := typeWords(fieldType(reflect.TypeFor[Manifest](), te.Field, te.Type))
		found := strings.Fields(te.Value + " value")[0]
		if field == "" {
			return line, col, fmt.Sprintf("the manifest must be %s; found %s", want, article(found))
		}
		return line, col, fmt.Sprintf("%s must be %s; found %s", field, want, article(found))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return 0, 0, "the file is empty or cut short: it must hold one JSON object"
	}
	return 0, 0, err.Error()
}

// fieldType is the declared type of the field at a dotted json path
// (encoding/json leaves map keys and array indexes out of it), or def.
func fieldType(t reflect.Type, path string, def reflect.Type) reflect.Type {
	if path == "" {
		return def
	}
	for _, name := range strings.Split(path, ".") {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Map || (t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct) {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return def
		}
		found := false
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == name {
				t, found = f.Type, true
				break
			}
		}
		if !found {
			return def
		}
	}
	return t
}

// typeWords names a Go type the way a manifest's author thinks of it.
func typeWords(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "a list of strings"
		}
		return "a list"
	case reflect.Map:
		if t.Elem().Kind() == reflect.String {
			return "an object of strings"
		}
		return "an object"
	case reflect.Struct:
		return "an object"
	}
	return "a " + t.String()
}

func article(kind string) string {
	switch kind {
	case "object", "array":
		if kind == "array" {
			kind = "list"
		}
		return "an " + kind
	case "string", "number":
		return "a " + kind
	case "bool":
		return "true or false"
	}
	return kind
}
