package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"strings"
	"sync"

	"github.com/valyala/fasthttp"
)

// Errors returned by ReadRequest, matched with errors.Is, so the host can
// pick the reply shape without reading error text.
var (
	// ErrBodyTooLarge: the body is longer than Limits.MaxBody.
	ErrBodyTooLarge = errors.New("wire: request body too large")
	// ErrMalformed: the body or query does not parse, or holds more fields
	// or files than Limits allow. It is wrapped with the detail.
	ErrMalformed = errors.New("wire: malformed request")
)

// Values holds form or query fields by name, in the order received. Names
// are kept exactly as sent, so an array field such as "offenderName[]"
// keeps its brackets and has one value per occurrence.
type Values map[string][]string

// Get returns the last value of key, or "" when there is none. The last
// one wins because PHP's $_POST and $_GET keep the last of repeated
// scalar fields, and this service stands in for a PHP one.
func (v Values) Get(key string) string {
	vs := v[key]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// Has reports whether key was sent at all, even with an empty value.
func (v Values) Has(key string) bool {
	_, ok := v[key]
	return ok
}

// File is an uploaded multipart file part.
type File struct {
	Name        string // form part name
	Filename    string // client-supplied file name, base name only
	ContentType string
	Data        []byte
}

// Request is the part of an HTTP request that handlers need, copied out of
// fasthttp's buffers so that it may outlive the handler and cross to other
// goroutines.
type Request struct {
	Method      string
	Path        string // decoded path, without the query
	Query       Values
	Form        Values          // url-encoded body fields or multipart text parts
	Files       map[string]File // multipart parts that carry a filename, by part name
	RemoteIP    string
	UserAgent   string
	ContentType string
}

// Limits bound what ReadRequest accepts. A zero field takes the value of
// DefaultLimits; there is deliberately no "unlimited".
type Limits struct {
	MaxBody   int64 // bytes of body
	MaxFiles  int   // multipart file parts
	MaxFields int   // query fields plus form fields
}

// DefaultLimits fit the stock client: form posts are small, and the largest
// upload is a zipped settings file of some kilobytes.
var DefaultLimits = Limits{
	MaxBody:   4 << 20,
	MaxFiles:  4,
	MaxFields: 512,
}

func (l Limits) withDefaults() Limits {
	if l.MaxBody <= 0 {
		l.MaxBody = DefaultLimits.MaxBody
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultLimits.MaxFiles
	}
	if l.MaxFields <= 0 {
		l.MaxFields = DefaultLimits.MaxFields
	}
	return l
}

// ReadRequest copies the request in ctx into a Request: method, path,
// query, and the body decoded per its Content-Type —
// application/x-www-form-urlencoded into Form; multipart/form-data text
// parts into Form and parts with a filename into Files; any other type
// (or none) leaves the body undecoded. Nothing in the result refers to
// fasthttp memory.
//
// Errors match ErrBodyTooLarge or ErrMalformed.
func ReadRequest(ctx *fasthttp.RequestCtx, lim Limits) (*Request, error) {
	lim = lim.withDefaults()
	req := &ctx.Request
	r := &Request{
		Method:      string(req.Header.Method()),
		Path:        string(ctx.Path()),
		RemoteIP:    ctx.RemoteIP().String(),
		UserAgent:   string(req.Header.UserAgent()),
		ContentType: string(req.Header.ContentType()),
		Query:       Values{},
		Form:        Values{},
		Files:       map[string]File{},
	}
	fields := 0
	if err := parseURLEncoded(r.Query, ctx.URI().QueryString(), &fields, lim.MaxFields); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}

	mediaType, params := "", map[string]string(nil)
	if r.ContentType != "" {
		var err error
		if mediaType, params, err = mime.ParseMediaType(r.ContentType); err != nil {
			return nil, fmt.Errorf("%w: Content-Type %q: %v", ErrMalformed, r.ContentType, err)
		}
	}
	if enc := req.Header.ContentEncoding(); len(enc) > 0 && !bytes.EqualFold(enc, []byte("identity")) {
		return nil, fmt.Errorf("%w: Content-Encoding %q is not supported", ErrMalformed, enc)
	}

	body, free, err := readBody(req, lim.MaxBody)
	if err != nil {
		return nil, err
	}
	defer free()
	switch mediaType {
	case "application/x-www-form-urlencoded":
		if err := parseURLEncoded(r.Form, body, &fields, lim.MaxFields); err != nil {
			return nil, fmt.Errorf("form: %w", err)
		}
	case "multipart/form-data":
		boundary := params["boundary"]
		if boundary == "" {
			return nil, fmt.Errorf("%w: multipart body without a boundary", ErrMalformed)
		}
		if err := parseMultipart(r, body, boundary, &fields, lim); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// readBody returns the body, refusing it when it exceeds max, and a func
// that frees it. The result may be fasthttp memory or a pooled buffer:
// callers copy what they keep, and call free once done with it.
func readBody(req *fasthttp.Request, max int64) (body []byte, free func(), err error) {
	// The declared length is checked first so that a streamed body is not
	// read at all when it announces itself as too large.
	cl := req.Header.ContentLength()
	if int64(cl) > max {
		return nil, nop, fmt.Errorf("%w: Content-Length %d exceeds %d", ErrBodyTooLarge, cl, max)
	}
	if req.IsBodyStream() {
		// Body() would read the whole stream into memory; read as the
		// bytes arrive instead, at most one past the limit.
		buf := bodyBufs.Get().(*[]byte)
		free = func() {
			if cap(*buf) <= pooledBody {
				bodyBufs.Put(buf)
			}
		}
		*buf, err = readStream(req.BodyStream(), cl, max, (*buf)[:0])
		if err != nil {
			free()
			return nil, nop, err
		}
		return *buf, free, nil
	}
	body = req.Body()
	if int64(len(body)) > max {
		return nil, nop, fmt.Errorf("%w: body of %d bytes exceeds %d", ErrBodyTooLarge, len(body), max)
	}
	return body, nop, nil
}

func nop() {}

// bodyBufs are the buffers streamed bodies are read into: ReadRequest
// copies what it keeps, so a buffer goes back once the request is parsed.
// Those above pooledBody are left to the collector.
var bodyBufs = sync.Pool{New: func() any { return new([]byte) }}

const pooledBody = 64 << 10

// readStream reads a streamed body into buf: cl bytes when its length is
// declared (cl >= 0), else up to its end. buf grows as the bytes arrive,
// never ahead of them to the declared length, so a request head that
// announces a large body holds no more memory than four times the bytes
// its client has sent. A body that ends before its declared length is malformed (its
// client went away, or the read timed out): it is never served cut short.
func readStream(r io.Reader, cl int, limit int64, buf []byte) ([]byte, error) {
	for cl < 0 || len(buf) < cl {
		if len(buf) == cap(buf) {
			n := max(2*int64(cap(buf)), 4<<10)
			if cl >= 0 && 4*len(buf) >= cl {
				n = int64(cl) // a quarter has arrived: the rest at once
			}
			if cl >= 0 {
				n = min(n, int64(cl))
			}
			n = min(n, limit+1)
			grown := make([]byte, len(buf), n)
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, fmt.Errorf("%w: body exceeds %d bytes", ErrBodyTooLarge, limit)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: reading body: %v", ErrMalformed, err)
		}
	}
	if cl >= 0 && len(buf) != cl {
		return nil, fmt.Errorf("%w: body ended after %d of its %d bytes", ErrMalformed, len(buf), cl)
	}
	return buf, nil
}

// parseURLEncoded adds the fields of an application/x-www-form-urlencoded
// text to dst. It splits on '&' only, as PHP does (a ';' is data), skips
// empty segments, and takes a name without '=' as having an empty value.
// Unescaping yields new strings, so dst never refers to data.
func parseURLEncoded(dst Values, data []byte, fields *int, maxFields int) error {
	for len(data) > 0 {
		var segment []byte
		if i := bytes.IndexByte(data, '&'); i >= 0 {
			segment, data = data[:i], data[i+1:]
		} else {
			segment, data = data, nil
		}
		if len(segment) == 0 {
			continue
		}
		if *fields++; *fields > maxFields {
			return fmt.Errorf("%w: more than %d fields", ErrMalformed, maxFields)
		}
		rawName, rawValue, _ := bytes.Cut(segment, []byte{'='})
		name, err := unescapeFormText(rawName)
		if err != nil {
			return fmt.Errorf("%w: field name %q: %v", ErrMalformed, truncate(rawName), err)
		}
		value, err := unescapeFormText(rawValue)
		if err != nil {
			return fmt.Errorf("%w: field %q: %v", ErrMalformed, truncate([]byte(name)), err)
		}
		dst[name] = append(dst[name], value)
	}
	return nil
}

// unescapeFormText decodes one url-encoded name or value ('+' is a space,
// %XX a byte) into a new string; ParseStatsForm decodes the same way.
func unescapeFormText(raw []byte) (string, error) {
	return url.QueryUnescape(string(raw))
}

// String summarises the request for logs without its field values, which
// may hold cookies and proofs; the path and function, which the client
// chose, keep at most 32 bytes each.
func (r *Request) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q from %s", truncate([]byte(r.Method)), truncate([]byte(r.Path)), r.RemoteIP)
	if f := r.Query.Get("f"); f != "" {
		fmt.Fprintf(&b, " f=%q", truncate([]byte(f)))
	} else if f := r.Form.Get("f"); f != "" {
		fmt.Fprintf(&b, " f=%q", truncate([]byte(f)))
	}
	return b.String()
}

// Value is field name as Decode reads it: the form's when the form has
// the field, else the query's ("" when neither has it), and of a field
// sent twice the last value (as in PHP). Code that reads a field before
// the handler decodes it (which node serves the request, which account a
// log line names) reads it so, or a field sent in the query, or twice,
// names one account there and another to the handler.
func (r *Request) Value(name string) string {
	if vs, ok := r.Form[name]; ok {
		if len(vs) == 0 {
			return ""
		}
		return vs[len(vs)-1]
	}
	return r.Query.Get(name)
}
