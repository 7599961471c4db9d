// Package download owns fetching one file an agent manifest names: the
// address policy (https only, plain http to loopback mirrors; redirects
// under the same rule; the guard that dials public addresses only), the
// budgets (an answer within HeaderTimeout, no stall, a minimum rate, a
// size cap), retries of transient failures, the sha256 check, and the
// words for a full disk. It writes into a temporary file beside the
// install and knows nothing of archives or the store.
package download
