package server

import (
	"context"
	"log/slog"

	"github.com/honmaster/masterserver/wire"
)

// Content types of replies. The original service sent PHP-serialized bodies
// as text/html; the specification allows text/plain too, and the game
// client reads the body whatever the type. text/plain (with nosniff, see
// Server.write) keeps a browser from running markup a reply echoes (a
// guide reply must echo hosttime byte for byte): issue 22 item 4.
const (
	contentPHP    = "text/plain; charset=UTF-8"
	contentJSON   = "application/json"
	contentBinary = "application/octet-stream"
)

// Response is what a handler answers. Status 0 means 200.
type Response struct {
	Status      int
	ContentType string
	Body        []byte
	Header      [][2]string
}

// Handler serves one API function with an owned, decoded request.
type Handler func(ctx context.Context, r *wire.Request) Response

// FailFunc shapes an error that stopped a request before its handler ran
// (body too large, malformed form, unknown function) the way the route's
// client expects.
type FailFunc func(err error) Response

// PHP encodes v as a PHP-serialized reply (text/plain; see contentPHP).
func PHP(log *slog.Logger, v any) Response { return phpReply(log, v) }

// Text is a plain reply with the given content type (for example the bare
// "invalid_request" word of the storage status call).
func Text(contentType, body string) Response {
	return Response{ContentType: contentType, Body: []byte(body)}
}

// Binary is a file download.
func Binary(body []byte, header ...[2]string) Response {
	return Response{ContentType: contentBinary, Body: body, Header: header}
}

// phpReply encodes v as a PHP-serialized reply. An encoding failure is a bug
// in a reply type; it is logged and answered with a PHP error array rather
// than a truncated body.
func phpReply(log *slog.Logger, v any) Response {
	body, err := wire.Marshal(v)
	if err != nil {
		log.Error("encode reply", "err", err, "type", slog.AnyValue(v).Kind())
		body, _ = wire.Marshal(errorReply{Error: "internal error"})
	}
	return Response{ContentType: contentPHP, Body: body}
}

// errorReply is the generic PHP error shape for routes without a recorded
// error body of their own.
type errorReply struct {
	Error string `php:"error"`
	wire.Extras
}
