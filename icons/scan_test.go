package icons

import (
	"reflect"
	"sync"
	"testing"
)

// TestCheckConcurrentAndInAnyOrder: validate checks icons on several
// goroutines with pooled checkers; no icon's answer may depend on which
// icons a checker read before it, or on what runs beside it.
func TestCheckConcurrentAndInAnyOrder(t *testing.T) {
	var inputs [][]byte
	for _, tc := range checkCases {
		inputs = append(inputs, []byte(tc.svg))
	}
	corpus, _ := loadCorpusIcons()
	for _, data := range corpus {
		inputs = append(inputs, data)
	}
	want := make([][]Problem, len(inputs))
	for i, data := range inputs {
		want[i] = Check(data)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range inputs {
				i := (len(inputs) - 1 - k + g*7) % len(inputs)
				if got := Check(inputs[i]); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("problems of %q after other icons:\n%v\nwant:\n%v", inputs[i], messages(got), messages(want[i]))
				}
			}
		})
	}
	wg.Wait()
}
