package build

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// A build reads entries back in id order, which is not always the order
// they were written in; every entry must come back whole from any
// position of the read-ahead window, and entries larger than it too.
func TestEntryStoreReadsBackInAnyOrder(t *testing.T) {
	s, err := newStore()
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	type ent struct {
		off  int64
		data []byte
	}
	var ents []ent
	for i := 0; i < 600; i++ {
		size := 900 + i%700
		if i == 300 {
			size = 600 << 10 // larger than the window
		}
		data := bytes.Repeat([]byte(fmt.Sprintf("%05d.", i)), size/6+1)[:size]
		off, err := s.append(data)
		if err != nil {
			t.Fatal(err)
		}
		ents = append(ents, ent{off, data})
	}
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	r := s.reader()
	order := rand.New(rand.NewPCG(1, 2)).Perm(len(ents))
	for _, i := range append(order, 0, 1, 2, 599, 598, 300, 301) {
		got, err := r.at(ents[i].off, int64(len(ents[i].data)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, ents[i].data) {
			t.Fatalf("entry %d read back wrong: %.20q…", i, got)
		}
	}
}
