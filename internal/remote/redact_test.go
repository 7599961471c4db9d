package remote

import "testing"

// A URL that does not parse keeps its password hidden all the same.
func TestRedactURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://me:pw@host/x":           "https://me:xxxxx@host/x",
		"https://me:pw@host/\x01":        "https://me:xxxxx@host/\x01",
		"https://me:p@w@ho st/a@b":       "https://me:xxxxx@ho st/a@b",
		"https://me@ho st/":              "https://me@ho st/",
		"https://ho st/x:y@z":            "https://ho st/x:y@z",
		"me:pw@host/\x01":                "me:pw@host/\x01",
		"http://127.0.0.1:1/\x1b[31mred": "http://127.0.0.1:1/\x1b[31mred",
	} {
		if got := RedactURL(raw); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
