// Package source decides where acp's registry comes from and keeps the
// local copy of it: an explicit --registry / ACP_REGISTRY (URL, registry.json
// file or registry folder), else the CDN index refreshed with its ETag and
// reused for an hour, else the last good cached copy when the network
// fails, else the registry embedded in the binary. A body is cached only
// after registry.ParseIndex accepted it, so a corrupt or hostile download
// never replaces a good copy.
//
// For a URL, three parts: the policy (policy.go) decides between the
// copy, a remembered failure, the network and the fallbacks; the cache
// (cache.go) keeps the files, each replaced by a rename; the fetch
// (fetch.go) asks through internal/remote, the module's one HTTP client.
package source
