package source

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The reason phrase of a status line is the server's to write: escapes in
// it (a window title, a screen clear, a hyperlink, a carriage return that
// rewrites the line, a bidi override) must reach stderr as visible text,
// in the cache warning and in the built-in registry's notice alike.
func TestServerStatusTextIsShownSafely(t *testing.T) {
	const evil = "503 \x1b]0;PWNED\x07\x1b[2J\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07\rOVERWRITE\u202eevil"
	var bad atomic.Bool
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err != nil {
					return
				}
				if bad.Load() {
					fmt.Fprintf(conn, "HTTP/1.1 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", evil)
					return
				}
				body := indexJSON("1.0.0")
				fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
			}()
		}
	}()
	url := "http://" + ln.Addr().String() + "/registry.json"
	c := &clock{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	for _, cached := range []bool{true, false} {
		var stderr bytes.Buffer
		o := Options{CacheDir: t.TempDir(), HTTP: &http.Client{}, Now: c.Now, Stderr: &stderr, DefaultURL: url, Embedded: embedded}
		if cached {
			bad.Store(false)
			if _, _, err := Load(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			c.t = c.t.Add(2 * time.Hour)
		}
		bad.Store(true)
		if _, _, err := Load(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if s := stderr.String(); strings.ContainsAny(s, "\x1b\x07\r\u202e") || !strings.Contains(s, `\x1b]0;PWNED`) {
			t.Errorf("cached=%v: stderr = %q, want the status text escaped", cached, s)
		}
	}
}

// A registry that breaks its rules for many agents names the first few
// and counts the rest: one line per agent of a hostile index was a
// million lines of stderr on every command.
func TestRefusedAgentsAreCounted(t *testing.T) {
	good := `{"id":"good","name":"Good","version":"1.0.0","description":"d","distribution":{"npx":{"package":"good@1.0.0"}}}`
	s := newServer(t, `{"version":"1.0.0","agents":[`+good+strings.Repeat(`,{}`, 50)+`]}`)
	var stderr bytes.Buffer
	o := opts(t, s, &clock{time.Now()}, &stderr)
	if _, _, err := Load(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != maxRefusedShown+1 || !strings.Contains(lines[len(lines)-1], "40 more agents") {
		t.Errorf("stderr has %d lines, ending %q", len(lines), lines[len(lines)-1])
	}
}
