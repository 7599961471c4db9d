package runtimes

import "testing"

// A failed npm's message keeps its error lines and drops the stack and
// the error object's dump; other output is kept whole.
func TestErrorLines(t *testing.T) {
	npmOut := "npm warn config something\nnpm error code ECONNREFUSED\nnpm error errno ECONNREFUSED\nnpm error FetchError: request to https://registry.npmjs.org/x failed\nnpm error     at ClientRequest.<anonymous> (/usr/lib/x.js:1:1) {\nnpm error   code: 'ECONNREFUSED',\nnpm error }\nnpm error\nnpm error If you are behind a proxy, please make sure\nnpm error A complete log of this run can be found in: /tmp/x.log"
	want := "npm error code ECONNREFUSED\nnpm error errno ECONNREFUSED\nnpm error FetchError: request to https://registry.npmjs.org/x failed\nnpm error If you are behind a proxy, please make sure"
	if got := errorLines(npmOut); got != want {
		t.Errorf("npm 10+:\n%s\nwant\n%s", got, want)
	}
	if got := errorLines("npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://x\nnpm ERR!     at y"); got != "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://x" {
		t.Errorf("npm 6-9: %q", got)
	}
	uv := "Resolved 3 packages\nerror: No solution found"
	if got := errorLines(uv); got != uv {
		t.Errorf("uv's output changed: %q", got)
	}
}
