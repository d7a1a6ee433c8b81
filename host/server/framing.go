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

// errTransferCoding refuses a request whose Transfer-Encoding is not
// chunked alone: RFC 9112 §6.1 gives a request whose last coding is not
// chunked no reliable length (the server must answer 400 and close), and
// fasthttp, which decodes chunked only, took "identity" for a request
// without a body, so the bytes sent as its body were served as the next
// request on the connection.
var errTransferCoding = errors.New("request has a Transfer-Encoding other than chunked")

// checkFraming looks at the request's raw header lines, as sent (fasthttp
// drops Content-Length once it sees Transfer-Encoding).
func checkFraming(h *fasthttp.RequestHeader) error {
	var cl, te, other bool
	for line := range bytes.SplitSeq(h.RawHeaders(), []byte("\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		name = bytes.TrimSpace(name)
		cl = cl || bytes.EqualFold(name, []byte("Content-Length"))
		if bytes.EqualFold(name, []byte("Transfer-Encoding")) {
			other = other || te || !bytes.EqualFold(bytes.TrimSpace(value), []byte("chunked"))
			te = true
		}
	}
	switch {
	case cl && te:
		return errAmbiguousFraming
	case other:
		return errTransferCoding
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
