package validate

// conformsFast reports whether a manifest certainly satisfies
// agent.schema.json, by a direct walk that allocates nothing. Most manifests
// do, and the general validator costs about half of checking one (it
// allocates bookkeeping for every object), so it runs only when this says
// no; every schema problem reported still comes from the general validator.
// The invariant (conformsFast true => no schema problem) is pinned by
// TestConformsFastAgrees and FuzzValidateManifest: change this together with
// schema/agent.schema.json.
func conformsFast(root map[string]any) bool {
	for _, k := range [...]string{"id", "name", "version", "description", "distribution"} {
		if _, ok := root[k]; !ok {
			return false
		}
	}
	for k, v := range root {
		switch k {
		case "id":
			if s, ok := v.(string); !ok || !idShape(s) {
				return false
			}
		case "name", "description":
			if s, ok := v.(string); !ok || s == "" {
				return false
			}
		case "version":
			if s, ok := v.(string); !ok || !versionShape(s, true) {
				return false
			}
		case "repository", "website", "license_url", "license", "icon":
			// URL formats are judged by the url-format rule, not reported
			// from the schema.
			if _, ok := v.(string); !ok {
				return false
			}
		case "authors":
			a, ok := v.([]any)
			if !ok {
				return false
			}
			for _, x := range a {
				if s, ok := x.(string); !ok || s == "" {
					return false
				}
			}
		case "distribution":
			if !distributionFast(v, false) {
				return false
			}
		case "preview":
			p, ok := v.(map[string]any)
			if !ok || len(p) != 2 {
				return false
			}
			ver, ok := p["version"].(string)
			if !ok || !versionShape(ver, true) {
				return false
			}
			if !distributionFast(p["distribution"], true) {
				return false
			}
		}
	}
	return true
}

func distributionFast(v any, preview bool) bool {
	d, ok := v.(map[string]any)
	if !ok || len(d) == 0 {
		return false
	}
	for k, x := range d {
		switch k {
		case "binary":
			if preview || !binaryFast(x) {
				return false
			}
		case "npx", "uvx":
			if !packageFast(x) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func binaryFast(v any) bool {
	b, ok := v.(map[string]any)
	if !ok || len(b) == 0 {
		return false
	}
	for platform, x := range b {
		switch platform {
		case "darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64":
		default:
			return false
		}
		t, ok := x.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := t["archive"]; !ok {
			return false
		}
		if _, ok := t["cmd"]; !ok {
			return false
		}
		for k, f := range t {
			switch k {
			case "archive", "cmd":
				if s, ok := f.(string); !ok || s == "" {
					return false
				}
			case "sha256":
				if s, ok := f.(string); !ok || !hex64(s) {
					return false
				}
			case "args":
				if !stringArray(f) {
					return false
				}
			case "env":
				if !envObject(f) {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

func packageFast(v any) bool {
	p, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := p["package"]; !ok {
		return false
	}
	for k, f := range p {
		switch k {
		case "package", "cmd":
			if s, ok := f.(string); !ok || s == "" {
				return false
			}
		case "args":
			if !stringArray(f) {
				return false
			}
		case "env":
			if !envObject(f) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func stringArray(v any) bool {
	a, ok := v.([]any)
	if !ok {
		return false
	}
	for _, x := range a {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}

// envObject is the schema's env: string values under names matching
// ^[A-Za-z_][A-Za-z0-9_]*$.
func envObject(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, x := range m {
		if _, ok := x.(string); !ok || !envName(k) {
			return false
		}
	}
	return true
}

func envName(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// idShape is ^[a-z][a-z0-9-]*$.
func idShape(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// versionShape is ^[0-9]+\.[0-9]+\.[0-9]+$, or with preview also an
// optional -preview.[0-9]+ suffix.
func versionShape(s string, preview bool) bool {
	i := 0
	for part := 0; part < 3; part++ {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
		if part < 2 {
			if i >= len(s) || s[i] != '.' {
				return false
			}
			i++
		}
	}
	if i == len(s) {
		return true
	}
	const suffix = "-preview."
	if !preview || len(s) <= i+len(suffix) || s[i:i+len(suffix)] != suffix {
		return false
	}
	for _, c := range []byte(s[i+len(suffix):]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func hex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
