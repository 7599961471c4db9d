// Package acpclient is a small client for the Agent Client Protocol on
// stdio: newline-delimited JSON-RPC 2.0 between a client (us) and a coding
// agent (a child process). It owns framing and message matching only:
// requests go out with increasing integer ids, the response with the same id
// answers them, notifications and responses for other ids are skipped,
// requests from the agent are refused with -32601, and lines that are not
// JSON are recorded as evidence that the agent breaks the stdio rule.
//
// Agents are untrusted: every line and the whole stream are size-capped,
// stderr is drained continuously into a bounded tail (an agent that fills
// the stderr pipe would otherwise block forever), and every wait honours the
// caller's context. We wrote it ourselves because the Go ACP SDK drops
// unknown fields of the initialize answer and misreads auth method types.
package acpclient
