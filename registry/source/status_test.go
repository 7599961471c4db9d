package source

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"
)

// Status tells an answer built on a fresh index from one built on the
// built-in registry or on a cached copy older than the cache policy allows
// (issue 22: upgrade said "up to date" against the built-in registry).
func TestStatusSaysHowCurrentTheIndexIs(t *testing.T) {
	s := newServer(t, indexJSON("1.0.0"))
	c := &clock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	o := opts(t, s, c, &bytes.Buffer{})
	load := func() Status {
		t.Helper()
		var st Status
		o.Status = &st
		if _, _, err := Load(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := load(); st.Origin != OriginCDN || !st.Current {
		t.Errorf("fetched now: %+v", st)
	}
	c.t = c.t.Add(30 * time.Minute)
	if st := load(); st.Origin != OriginCache || !st.Current || !st.FetchedAt.Equal(c.t.Add(-30*time.Minute)) {
		t.Errorf("cached 30 min ago: %+v", st)
	}
	c.t = c.t.Add(2 * time.Hour)
	s.status.Store(http.StatusBadGateway)
	if st := load(); st.Origin != OriginCache || st.Current {
		t.Errorf("cached 2.5 h ago, network failed: %+v", st)
	}
	o.Offline = true
	if st := load(); st.Origin != OriginCache || st.Current {
		t.Errorf("cached 2.5 h ago, offline: %+v", st)
	}
	o.Offline = false
	s.status.Store(0)
	c.t = c.t.Add(10 * time.Minute) // past the remembered failure
	if st := load(); st.Origin != OriginCache || !st.Current || !st.FetchedAt.Equal(c.t) {
		t.Errorf("confirmed by 304: %+v", st)
	}

	o = opts(t, s, c, &bytes.Buffer{})
	s.status.Store(http.StatusBadGateway)
	if st := load(); st.Origin != OriginEmbedded || st.Current {
		t.Errorf("built-in fallback: %+v", st)
	}
}
