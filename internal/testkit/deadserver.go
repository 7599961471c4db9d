package testkit

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Death is how a DeadServer fails its clients.
type Death int

const (
	Refuses Death = iota // takes each connection and closes it at once
	Hangs                // takes each connection and never answers, as a captive portal or a dead proxy does
)

// DeadServer is a server on loopback that nobody can use, failing as
// death says. It returns its base URL ("http://127.0.0.1:port/dist/") and
// a counter of the connections it took.
func DeadServer(t testing.TB, death Death) (url string, conns func() int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	var mu sync.Mutex
	var held []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			if death == Refuses {
				c.Close()
				continue
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	return "http://" + l.Addr().String() + "/dist/", n.Load
}
