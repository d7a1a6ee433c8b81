package server

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"
)

// errAmbiguousFraming refuses a request that carries both Content-Length and
// Transfer-Encoding: a proxy in front may read its body one way and this
// server the other (request smuggling). RFC 9112 §6.1 allows a server to
// refuse such a request; this one always does.
var errAmbiguousFraming = errors.New("request has both Content-Length and Transfer-Encoding")

// checkFraming looks at the request's raw header lines, as sent (fasthttp
// drops Content-Length once it sees Transfer-Encoding).
func checkFraming(h *fasthttp.RequestHeader) error {
	var cl, te bool
	for line := range bytes.SplitSeq(h.RawHeaders(), []byte("\n")) {
		name, _, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		name = bytes.TrimSpace(name)
		cl = cl || bytes.EqualFold(name, []byte("Content-Length"))
		te = te || bytes.EqualFold(name, []byte("Transfer-Encoding"))
	}
	if cl && te {
		return errAmbiguousFraming
	}
	return nil
}

// refuseFraming answers a request refused by checkFraming: 400 in the
// failure shape of the route it was meant for, and the connection closed.
func (s *Server) refuseFraming(ctx *fasthttp.RequestCtx, err error, start time.Time) {
	path, fn := string(ctx.Path()), string(ctx.QueryArgs().Peek("f"))
	resp := s.notFound(path, fn)
	rt, found := s.lookup(path, fn)
	if found {
		resp = rt.fail(fmt.Errorf("%w: %w", errBadRequest, err))
	}
	resp.Status = fasthttp.StatusBadRequest
	s.write(ctx, resp)
	ctx.SetConnectionClose()
	// In the access log and the metrics as every refused request: an
	// attempt to smuggle a request leaves a line naming its client.
	s.observed(ctx, nil, path, fn, found, rt, nil, start)
}
