package remote

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Ranges that IsPublicIP refuses beyond what net/netip classifies itself.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (carrier NAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001::/32"),       // Teredo: tunnels to arbitrary IPv4
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
}

// Prefixes that embed an IPv4 address a gateway would translate to; the
// embedded address must be public too, or 64:ff9b::7f00:1 reaches 127.0.0.1.
var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
	shared = netip.MustParsePrefix("100.64.0.0/10")
)

// IsPublicIP reports whether ip is a globally routable unicast address:
// not loopback, private, link-local, shared (100.64/10), unspecified,
// multicast, documentation or reserved.
func IsPublicIP(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = ip.Unmap()
	if ip.IsUnspecified() || ip.IsLoopback() || ip.IsPrivate() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	if nat64.Contains(ip) {
		b := ip.As16()
		return IsPublicIP(netip.AddrFrom4([4]byte(b[12:16])))
	}
	if sixTo4.Contains(ip) {
		b := ip.As16()
		return IsPublicIP(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return true
}

// describe names the kind of a non-public address for messages.
func describe(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case shared.Contains(ip):
		return "shared (carrier NAT)"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	}
	return "reserved, non-public"
}

// checkTarget is the policy for a URL taken from a manifest, before any
// connection: https only, and no literal non-public address or local name.
func checkTarget(u *url.URL) error {
	if u.Scheme != "https" {
		return ErrNotHTTPS
	}
	host := u.Hostname()
	if host == "" {
		return &url.Error{Op: "parse", URL: u.String(), Err: errNoHost}
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !IsPublicIP(ip) {
			return &NotPublicError{Host: host, IP: ip}
		}
		return nil
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return &NotPublicError{Host: host}
	}
	return nil
}

// guard dials only public addresses. It resolves the name itself, refuses
// the connection when any address is non-public, and connects to an
// address it checked, so the answer that was checked is the one used (a
// second DNS answer cannot rebind the name to 127.0.0.1 in between).
type guard struct {
	lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)
	dialer *net.Dialer
	// Proxies are configured by the operator (HTTPS_PROXY...), so the
	// connection to them is trusted; the proxy resolves the target.
	proxies sync.Map
	// proxy is the transport's original proxy function.
	proxy func(*http.Request) (*url.URL, error)
	// allow says which addresses may be dialed; IsPublicIP unless set.
	allow func(netip.Addr) bool
}

func newGuard(dialTimeout time.Duration, proxy func(*http.Request) (*url.URL, error)) *guard {
	g := &guard{lookup: net.DefaultResolver.LookupNetIP, proxy: proxy, allow: IsPublicIP}
	g.dialer = &net.Dialer{
		Timeout: dialTimeout,
		// Belt and braces: whatever address the dialer ends up using is
		// checked once more right before connect.
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if !g.allow(ap.Addr().Unmap()) {
				return &NotPublicError{Host: ap.Addr().String(), IP: ap.Addr()}
			}
			return nil
		},
	}
	return g
}

// GuardTransport returns a clone of t that connects only to addresses
// allow accepts (nil: IsPublicIP). The name is resolved by the guard and
// the checked address is the one dialed, and checked again right before
// connect, so a second DNS answer cannot rebind the host to 127.0.0.1.
// Proxies from t.Proxy are the operator's and trusted. dialTimeout bounds
// one connect. lookup replaces DNS (nil: the system resolver). A refusal
// wraps a *NotPublicError.
func GuardTransport(t *http.Transport, dialTimeout time.Duration, allow func(netip.Addr) bool, lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)) *http.Transport {
	return guardTransport(t, dialTimeout, allow, lookup)
}

func guardTransport(t *http.Transport, dialTimeout time.Duration, allow func(netip.Addr) bool, lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)) *http.Transport {
	g := t.Clone()
	gd := newGuard(dialTimeout, t.Proxy)
	if allow != nil {
		gd.allow = allow
	}
	if lookup != nil {
		gd.lookup = lookup
	}
	g.Proxy = gd.proxyFunc
	g.DialContext = gd.DialContext
	// A custom TLS dialer would bypass the guard; TLS is layered on the
	// guarded connection by the transport instead.
	g.DialTLSContext = nil
	//lint:ignore SA1019 a deprecated dialer set on the base transport must be cleared too
	g.DialTLS = nil
	//lint:ignore SA1019 as above
	g.Dial = nil
	return g
}

func (g *guard) proxyFunc(req *http.Request) (*url.URL, error) {
	if g.proxy == nil {
		return nil, nil
	}
	u, err := g.proxy(req)
	if u != nil {
		g.proxies.Store(canonicalAddr(u), true)
	}
	return u, err
}

func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

func (g *guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if _, ok := g.proxies.Load(addr); ok {
		return (&net.Dialer{Timeout: g.dialer.Timeout}).DialContext(ctx, network, addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		ipNet := "ip"
		switch network {
		case "tcp4":
			ipNet = "ip4"
		case "tcp6":
			ipNet = "ip6"
		}
		ips, err = g.lookup(ctx, ipNet, host)
		if err != nil {
			return nil, err
		}
	}
	for _, ip := range ips {
		if !g.allow(ip.Unmap()) {
			return nil, &NotPublicError{Host: host, IP: ip.Unmap()}
		}
	}
	// Without the standard dialer's Happy Eyeballs, a host with a dead
	// IPv6 route would eat the whole timeout: try IPv4 first, and give each
	// address only its share of the time left, as net.Dialer does for
	// serial dials.
	sort.SliceStable(ips, func(i, j int) bool { return ips[i].Unmap().Is4() && !ips[j].Unmap().Is4() })
	var firstErr error
	for i, ip := range ips {
		dctx, cancel := ctx, context.CancelFunc(func() {})
		if left := len(ips) - i; left > 1 {
			budget := g.dialer.Timeout
			if dl, ok := ctx.Deadline(); ok {
				budget = time.Until(dl)
			}
			if budget > 0 {
				dctx, cancel = context.WithTimeout(ctx, max(budget/time.Duration(left), 2*time.Second))
			}
		}
		c, err := g.dialer.DialContext(dctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		cancel()
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if firstErr == nil {
		firstErr = &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	return nil, firstErr
}
