package failmemo

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func key(s string) string { return Key(func(w io.Writer) { io.WriteString(w, s) }) }

func memo(t *testing.T) Memo {
	return Memo{Path: filepath.Join(t.TempDir(), "failed", "x.json"), For: 5 * time.Minute}
}

// A failure is said again, message, hint and kinds as they were, for the
// same inputs until it is as old as For; then it is tried again.
func TestRecalledUntilItExpires(t *testing.T) {
	m := memo(t)
	in := key("mirror=a")
	m.Remember(Failure{At: t0, Message: "network down", Hint: "check the network", Kinds: []string{"network"}, Inputs: in})
	f, age, out := m.Recall(in, t0.Add(4*time.Minute))
	if out != Recalled || f.Message != "network down" || f.Hint != "check the network" || !f.Has("network") || f.Has("integrity") || age != 4*time.Minute {
		t.Fatalf("Recall = %+v, %v, %v", f, age, out)
	}
	if _, _, out := m.Recall(in, t0.Add(5*time.Minute)); out != None {
		t.Errorf("a failure For old: %v, want None (try again)", out)
	}
	// The clock moved back: the record is from the future, not recent.
	if _, _, out := m.Recall(in, t0.Add(-time.Second)); out != None {
		t.Errorf("a failure from the future: %v, want None", out)
	}
}

// When what the attempt depended on changes (a mirror, a proxy, a
// runtime), the failure is not said again.
func TestForgottenWhenInputsChange(t *testing.T) {
	m := memo(t)
	m.Remember(Failure{At: t0, Message: "proxy refused", Inputs: key("HTTPS_PROXY=http://a")})
	if _, _, out := m.Recall(key("HTTPS_PROXY=http://b"), t0.Add(time.Second)); out != Changed {
		t.Errorf("other inputs: %v, want Changed", out)
	}
	if key("a") == key("b") || len(key("a")) != 32 {
		t.Errorf("Key does not tell inputs apart: %q %q", key("a"), key("b"))
	}
}

// Key is a digest: a password in a proxy URL does not reach the file.
func TestRecordHoldsNoInputInTheClear(t *testing.T) {
	m := memo(t)
	m.Remember(Failure{At: t0, Message: "refused", Inputs: key("HTTPS_PROXY=http://u:s3cret@proxy")})
	data, err := os.ReadFile(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cret") {
		t.Errorf("the record shows a password: %s", data)
	}
}

// Forget removes the record; a Memo without a path remembers nothing.
func TestForgetAndNoPath(t *testing.T) {
	m := memo(t)
	m.Remember(Failure{At: t0, Message: "x", Inputs: "k"})
	m.Forget()
	if _, _, out := m.Recall("k", t0); out != None {
		t.Errorf("after Forget: %v", out)
	}
	var none Memo
	none.Remember(Failure{At: t0, Message: "x", Inputs: "k"})
	if _, _, out := none.Recall("k", t0); out != None {
		t.Errorf("a Memo without a path recalled: %v", out)
	}
	none.Forget()
}

// A record that is not one (damaged, cut short, empty, another format,
// oversized) is no record: the attempt is made, never a panic or a
// replay of garbage.
func TestDamagedOrOversizedRecordIgnored(t *testing.T) {
	at := t0.Format(time.RFC3339Nano)
	big := fmt.Sprintf(`{"at":%q,"message":"%s","inputs":"k"}`, at, strings.Repeat("x", maxRecord))
	for name, body := range map[string]string{
		"garbage":    "\x00\xff not json",
		"cut short":  fmt.Sprintf(`{"at":%q,"message":"net`, at),
		"empty":      "",
		"no message": fmt.Sprintf(`{"at":%q,"inputs":"k"}`, at),
		"no time":    `{"message":"down","inputs":"k"}`,
		"wrong type": fmt.Sprintf(`{"at":%q,"message":"down","kinds":"network","inputs":"k"}`, at),
		// registry/source's record before failmemo (decisions.md: one retry).
		"old registry record": fmt.Sprintf(`{"url":"https://r","failedAt":%q,"error":"down","inputs":"k"}`, at),
		"oversized":           big,
	} {
		t.Run(name, func(t *testing.T) {
			m := memo(t)
			if err := os.MkdirAll(filepath.Dir(m.Path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(m.Path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			if f, _, out := m.Recall("k", t0.Add(time.Second)); out != None {
				t.Errorf("Recall = %+v, %v, want None", f, out)
			}
		})
	}
	// The same record within the limit is read: the limit, not the
	// content, refused it.
	m := memo(t)
	m.Remember(Failure{At: t0, Message: strings.Repeat("x", maxRecord/2), Inputs: "k"})
	if _, _, out := m.Recall("k", t0.Add(time.Second)); out != Recalled {
		t.Errorf("a long message within the limit: %v, want Recalled", out)
	}
}

// A symbolic link where the record goes is not followed: another file
// (written to look like a record) is not read as the memory.
func TestLinkNotFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.json")
	good := Memo{Path: target, For: time.Hour}
	good.Remember(Failure{At: t0, Message: "down", Inputs: "k"})
	if _, _, out := good.Recall("k", t0); out != Recalled {
		t.Fatalf("the target itself: %v (the test's premise)", out)
	}
	link := Memo{Path: filepath.Join(dir, "x.json"), For: time.Hour}
	if err := os.Symlink(target, link.Path); err != nil {
		t.Skip("symlink:", err)
	}
	if f, _, out := link.Recall("k", t0); out != None {
		t.Errorf("a link was followed: %+v, %v", f, out)
	}
	// Remembering replaces the link, not the file it points to.
	link.Remember(Failure{At: t0, Message: "new", Inputs: "k"})
	if f, _, _ := good.Recall("k", t0); f.Message != "down" {
		t.Errorf("the link's target was written: %+v", f)
	}
	if f, _, out := link.Recall("k", t0); out != Recalled || f.Message != "new" {
		t.Errorf("after Remember: %+v, %v", f, out)
	}
}
