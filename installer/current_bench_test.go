package installer

import (
	"context"
	"testing"
)

// Current is what acp resolve pays on every editor launch: one marker and
// one receipt read, plus a look at the command, however many versions
// are installed.
func BenchmarkCurrent(b *testing.B) {
	srv := newServer(b)
	in := newInstaller(b)
	for _, v := range []string{"1.0.0", "1.1.0", "1.2.0", "2.0.0"} {
		body := makeTar(b, []entry{exe("agent", agentScript)}, "gz")
		url := srv.add("/"+v+".tgz", body)
		if _, _, err := in.Install(context.Background(), Request{Agent: binaryManifest("demo", v, url, "agent", sha(body))}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := in.Current("demo"); err != nil {
			b.Fatal(err)
		}
	}
}
