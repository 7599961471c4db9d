package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentclientprotocol/acp-registry-go/internal/atomicfile"
	"github.com/agentclientprotocol/acp-registry-go/registry"
)

// AgentsKey holds per-agent settings: {"agents": {"<id>": {"env":
// {"NAME": "value"}, "args": ["…"]}}}.
const AgentsKey = "agents"

// AgentSettings are the env and args a user gives one agent's launches.
type AgentSettings struct {
	Env  map[string]string `json:"env,omitempty"`
	Args []string          `json:"args,omitempty"`
}

// parseAgents reads the "agents" object.
func parseAgents(v any) (map[string]AgentSettings, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out map[string]AgentSettings
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf(`"agents" must be {"<id>": {"env": {"NAME": "value"}, "args": ["…"]}}: %v`, err)
	}
	for id, s := range out {
		if !registry.ValidID(id) {
			return nil, fmt.Errorf("agents: %q is not an agent id", id)
		}
		for name := range s.Env {
			if err := checkEnvName(name); err != nil {
				return nil, fmt.Errorf("agents.%s.env: %v", id, err)
			}
		}
	}
	return out, nil
}

func checkEnvName(name string) error {
	if name == "" || strings.ContainsAny(name, "=\x00 \t") {
		return fmt.Errorf("%q is not a variable name", name)
	}
	if registry.DroppedEnv(name) {
		return errors.New(registry.DroppedEnvMessage(name))
	}
	if registry.ReservedEnv(name) {
		return fmt.Errorf("env %s is not passed to an agent: it would hijack the launcher or the host", name)
	}
	return nil
}

// Key is a parsed config key: a plain key ("offline") or an agent's
// ("agents.<id>.env.<NAME>", "agents.<id>.args").
type Key struct {
	Plain string
	Agent string
	// Env is the variable of an env key; "" for args.
	Env string
}

// ParseKey reads a key of acp config set|get|unset.
func ParseKey(s string) (Key, error) {
	if slices.Contains(Keys, s) {
		return Key{Plain: s}, nil
	}
	parts := strings.SplitN(s, ".", 4)
	if len(parts) >= 3 && parts[0] == AgentsKey && registry.ValidID(parts[1]) {
		switch {
		case len(parts) == 3 && parts[2] == "args":
			return Key{Agent: parts[1]}, nil
		case len(parts) == 4 && parts[2] == "env":
			if err := checkEnvName(parts[3]); err != nil {
				return Key{}, fmt.Errorf("config key %q: %v", s, err)
			}
			return Key{Agent: parts[1], Env: parts[3]}, nil
		}
	}
	return Key{}, fmt.Errorf("unknown config key %q: use agents.<id>.env.<NAME>, agents.<id>.args, or one of %s", s, strings.Join(Keys, ", "))
}

func (k Key) String() string {
	switch {
	case k.Plain != "":
		return k.Plain
	case k.Env != "":
		return AgentsKey + "." + k.Agent + ".env." + k.Env
	}
	return AgentsKey + "." + k.Agent + ".args"
}

// document is the file as a JSON object.
type document map[string]any

func readDocument(path string) (document, error) {
	data, err := registry.ReadRegular(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return document{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if _, _, err := parse(path, data); err != nil {
		return nil, err
	}
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return doc, nil
}

// Get is the value of k in the file at path: a string, or the args list.
func Get(path string, k Key) (any, bool, error) {
	doc, err := readDocument(path)
	if err != nil {
		return nil, false, err
	}
	if k.Plain != "" {
		v, ok := doc[k.Plain]
		return v, ok, nil
	}
	a, ok := agentOf(doc, k.Agent)
	if !ok {
		return nil, false, nil
	}
	if k.Env == "" {
		v, ok := a["args"]
		return v, ok, nil
	}
	env, _ := a["env"].(map[string]any)
	v, ok := env[k.Env]
	return v, ok, nil
}

func agentOf(doc document, id string) (map[string]any, bool) {
	agents, _ := doc[AgentsKey].(map[string]any)
	a, ok := agents[id].(map[string]any)
	return a, ok
}

// Set writes k = values into the file at path (created, mode 0600: env
// values may be secrets). A plain or env key takes one value; args take
// the list.
func Set(path string, k Key, values []string) error {
	return edit(path, func(doc document) error {
		if k.Plain != "" || k.Env != "" {
			if len(values) != 1 {
				return fmt.Errorf("%s takes one value, got %d", k, len(values))
			}
		}
		if k.Plain != "" {
			doc[k.Plain] = values[0]
			return nil
		}
		agents, _ := doc[AgentsKey].(map[string]any)
		if agents == nil {
			agents = map[string]any{}
			doc[AgentsKey] = agents
		}
		a, _ := agents[k.Agent].(map[string]any)
		if a == nil {
			a = map[string]any{}
			agents[k.Agent] = a
		}
		if k.Env == "" {
			list := make([]any, len(values))
			for i, v := range values {
				list[i] = v
			}
			a["args"] = list
			return nil
		}
		env, _ := a["env"].(map[string]any)
		if env == nil {
			env = map[string]any{}
			a["env"] = env
		}
		env[k.Env] = values[0]
		return nil
	})
}

// Unset removes k from the file at path; false when it was not set.
func Unset(path string, k Key) (bool, error) {
	found := false
	err := edit(path, func(doc document) error {
		if k.Plain != "" {
			_, found = doc[k.Plain]
			delete(doc, k.Plain)
			return nil
		}
		agents, _ := doc[AgentsKey].(map[string]any)
		a, ok := agents[k.Agent].(map[string]any)
		if !ok {
			return nil
		}
		if k.Env == "" {
			_, found = a["args"]
			delete(a, "args")
		} else if env, ok := a["env"].(map[string]any); ok {
			_, found = env[k.Env]
			delete(env, k.Env)
			if len(env) == 0 {
				delete(a, "env")
			}
		}
		if len(a) == 0 {
			delete(agents, k.Agent)
		}
		if len(agents) == 0 {
			delete(doc, AgentsKey)
		}
		return nil
	})
	return found, err
}

// edit rewrites the file through change: checked as it will be read,
// replaced whole, mode 0600 in a folder of mode 0700 when acp makes it.
func edit(path string, change func(document) error) error {
	if path == "" {
		return errors.New("this system has no config folder: set ACP_CONFIG to a file")
	}
	doc, err := readDocument(path)
	if err != nil {
		return err
	}
	if err := change(doc); err != nil {
		return err
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if _, _, err := parse(path, data); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}
