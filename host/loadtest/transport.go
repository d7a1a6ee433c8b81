package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
)

// maxUnsentRetries bounds how many times one request is sent again after
// stale keep-alive connections: the pool can hold several the server closed
// at once.
const maxUnsentRetries = 4

// transport sends each request to one of the targets at random (so one
// account's requests, even the two of a login, cross the nodes of a
// cluster), and sends again a request that did not reach the server.
//
// A keep-alive connection the server closes while idle (its idle timeout,
// or its connection limit making room) can be taken from the pool just as
// the close is under way: the request goes out, and the connection ends
// (EOF, reset) before a byte of a reply. When the server's side was
// already closed the request was never read; but a clean EOF looks the
// same as a server that read the request, applied it and died before
// replying. So such a request is sent again, on a fresh connection, only
// when sending it twice is harmless (a read: the operation says so with
// withReplayable), or when the connection was reset (the server closed it
// with the request unread: a mutation is then never applied). A mutation
// that met a clean EOF stays a transport error and its account leaves the
// consistency check (its outcome is unknown). Retries are counted apart
// (OpReport.Retried).
//
// The tester also avoids the case: it closes its idle connections before
// the server's default idle timeout does (newClient), and opens no more
// connections than it has clients, below the server's per-address limit.
type transport struct {
	inner   http.RoundTripper
	targets []*url.URL
	sent    []atomic.Int64 // requests sent per target
}

func newTransport(inner http.RoundTripper, targets []*url.URL) *transport {
	return &transport{inner: inner, targets: targets, sent: make([]atomic.Int64, len(targets))}
}

// replayableKey marks a context whose requests may be sent twice.
type replayableKey struct{}

// withReplayable marks ctx's requests as harmless to send twice (reads).
func withReplayable(ctx context.Context) context.Context {
	return context.WithValue(ctx, replayableKey{}, true)
}

// retryCounter is the context key of an operation's retry count.
type retryCounter struct{}

// withRetryCounter returns a context whose requests count their retries in n.
func withRetryCounter(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, retryCounter{}, n)
}

// triedKey is the context key of a *triedTargets.
type triedKey struct{}

// triedTargets is the targets a read has been sent to, so that sending it
// again after one did not answer (a node that is down) goes to another
// (withTriedTargets).
type triedTargets struct {
	mu   sync.Mutex
	sent map[int]bool
}

// withTriedTargets returns a context whose requests go each to a target
// that none of the earlier ones went to, at random among those, as long as
// any is left (then to any).
func withTriedTargets(ctx context.Context) context.Context {
	return context.WithValue(ctx, triedKey{}, &triedTargets{sent: map[int]bool{}})
}

// pick is the target of a request with context ctx: one at random, or with
// withTriedTargets one not tried yet.
func (t *transport) pick(ctx context.Context) int {
	tried, _ := ctx.Value(triedKey{}).(*triedTargets)
	if tried == nil {
		return mrand.IntN(len(t.targets))
	}
	tried.mu.Lock()
	defer tried.mu.Unlock()
	var left []int
	for i := range t.targets {
		if !tried.sent[i] {
			left = append(left, i)
		}
	}
	i := mrand.IntN(len(t.targets))
	if len(left) > 0 {
		i = left[mrand.IntN(len(left))]
	}
	tried.sent[i] = true
	return i
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.targets) > 1 {
		i := t.pick(req.Context())
		req = req.Clone(req.Context())
		req.URL.Scheme, req.URL.Host = t.targets[i].Scheme, t.targets[i].Host
		req.Host = ""
		t.sent[i].Add(1)
	} else {
		t.sent[0].Add(1)
	}
	for attempt := 0; ; attempt++ {
		var idleReused, replied bool
		trace := &httptrace.ClientTrace{
			GotConn:              func(i httptrace.GotConnInfo) { idleReused = i.Reused && i.WasIdle },
			GotFirstResponseByte: func() { replied = true },
		}
		resp, err := t.inner.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
		if err == nil || !idleReused || replied || attempt >= maxUnsentRetries || req.Context().Err() != nil {
			return resp, err
		}
		if replayable, _ := req.Context().Value(replayableKey{}).(bool); !(replayable && connEnded(err)) && !connReset(err) {
			return resp, err
		}
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return resp, err // the body cannot be sent again
			}
			body, gerr := req.GetBody()
			if gerr != nil {
				return resp, fmt.Errorf("%w (and its body could not be rewound: %w)", err, gerr)
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
		if n, ok := req.Context().Value(retryCounter{}).(*atomic.Int64); ok {
			n.Add(1)
		}
	}
}

// connEnded reports whether err is the connection ending under the request.
func connEnded(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || connReset(err)
}

// connReset reports whether the server's side reset the connection: it
// was closed with the request's bytes unread (or they reached a closed
// socket), so the server never had the whole request.
func connReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// parseTargets checks the targets: base URLs, http or https, without a path
// (a request keeps its path and changes only its scheme and host).
func parseTargets(targets []string) ([]*url.URL, error) {
	if len(targets) == 0 {
		return nil, fmt.Errorf("%w: a target URL is needed", ErrUsage)
	}
	var out []*url.URL
	for _, s := range targets {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return nil, fmt.Errorf("%w: target %q is not a base URL like http://127.0.0.1:8080", ErrUsage, s)
		}
		out = append(out, &url.URL{Scheme: u.Scheme, Host: u.Host})
	}
	return out, nil
}
