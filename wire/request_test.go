package wire

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net"
	"net/textproto"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

var clientAddr = &net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 50123}

const stockAgent = "S2 Games/Heroes of Newerth/4.10.1.0/wac/x86_64"

// newCtx builds a RequestCtx in process, as the server would hand it to a
// handler; no network is involved.
func newCtx(method, uri, contentType string, body []byte) *fasthttp.RequestCtx {
	var req fasthttp.Request
	req.Header.SetMethod(method)
	req.SetRequestURI(uri)
	req.Header.SetUserAgent(stockAgent)
	if contentType != "" {
		req.Header.SetContentType(contentType)
	}
	req.SetBody(body)
	ctx := &fasthttp.RequestCtx{}
	ctx.Init(&req, clientAddr, nil)
	return ctx
}

type part struct {
	name, filename, contentType, data string
}

func multipartBody(t testing.TB, parts ...part) (contentType string, body []byte) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disposition := `form-data; name="` + p.name + `"`
		if p.filename != "" {
			disposition += `; filename="` + p.filename + `"`
		}
		h.Set("Content-Disposition", disposition)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(pw, p.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), buf.Bytes()
}

func TestReadRequestURLEncoded(t *testing.T) {
	body := "login=SouL&A=ab%2Bcd&SysInfo=Win|x86_64|8GB&offenderName[]=x&offenderName%5B%5D=y" +
		"&empty=&bare&semi=a;b&plus=a+b&&dup=1&dup=2"
	ctx := newCtx("POST", "/client_requester.php?f=pre_auth&x=%C3%A9", "application/x-www-form-urlencoded; charset=UTF-8", []byte(body))
	r, err := ReadRequest(ctx, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := &Request{
		Method: "POST",
		Path:   "/client_requester.php",
		Query:  Values{"f": {"pre_auth"}, "x": {"é"}},
		Form: Values{
			"login":          {"SouL"},
			"A":              {"ab+cd"},
			"SysInfo":        {"Win|x86_64|8GB"},
			"offenderName[]": {"x", "y"},
			"empty":          {""},
			"bare":           {""},
			"semi":           {"a;b"},
			"plus":           {"a b"},
			"dup":            {"1", "2"},
		},
		Files:       map[string]File{},
		RemoteIP:    "192.0.2.7",
		UserAgent:   stockAgent,
		ContentType: "application/x-www-form-urlencoded; charset=UTF-8",
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("ReadRequest =\n%#v\nwant\n%#v", r, want)
	}
	if got := r.Form.Get("dup"); got != "2" {
		t.Errorf("Get(dup) = %q, want the last value as PHP", got)
	}
	if !r.Form.Has("empty") || r.Form.Has("missing") || r.Form.Get("missing") != "" {
		t.Error("Has/Get wrong for empty or missing fields")
	}
}

func TestReadRequestMultipart(t *testing.T) {
	zip := "PK\x03\x04\x00\xff binary \r\n--not-a-boundary"
	ct, body := multipartBody(t,
		part{name: "cookie", data: "0123456789abcdef0123456789abcdef"},
		part{name: "bucket", data: "hon-game-configs"},
		part{name: "file_modify_time", data: "2021-05-09 15:18:47"},
		part{name: "cloud.zip", filename: "cloud.zip", contentType: "application/octet-stream", data: zip},
		part{name: "", data: "no name: ignored"},
	)
	r, err := ReadRequest(newCtx("POST", "/master/storage/store", ct, body), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	wantForm := Values{
		"cookie":           {"0123456789abcdef0123456789abcdef"},
		"bucket":           {"hon-game-configs"},
		"file_modify_time": {"2021-05-09 15:18:47"},
	}
	if !reflect.DeepEqual(r.Form, wantForm) {
		t.Errorf("Form = %v, want %v", r.Form, wantForm)
	}
	wantFiles := map[string]File{"cloud.zip": {Name: "cloud.zip", Filename: "cloud.zip", ContentType: "application/octet-stream", Data: []byte(zip)}}
	if !reflect.DeepEqual(r.Files, wantFiles) {
		t.Errorf("Files = %#v, want %#v", r.Files, wantFiles)
	}
}

func TestReadRequestOtherBodies(t *testing.T) {
	for _, ct := range []string{"", "text/plain", "application/json"} {
		r, err := ReadRequest(newCtx("POST", "/x", ct, []byte("a=1")), Limits{})
		if err != nil {
			t.Fatalf("%q: %v", ct, err)
		}
		if len(r.Form) != 0 || len(r.Files) != 0 {
			t.Errorf("%q: body decoded as form: %v", ct, r.Form)
		}
	}
}

func TestReadRequestErrors(t *testing.T) {
	form := "application/x-www-form-urlencoded"
	manyFiles := make([]part, 3)
	for i := range manyFiles {
		manyFiles[i] = part{name: string(rune('a' + i)), filename: "f", data: "x"}
	}
	mpFiles, bodyFiles := multipartBody(t, manyFiles...)
	mpFields, bodyFields := multipartBody(t, part{name: "a", data: "1"}, part{name: "b", data: "2"}, part{name: "c", data: "3"})
	mpDup, bodyDup := multipartBody(t, part{name: "f", filename: "1", data: "x"}, part{name: "f", filename: "2", data: "y"})
	mpOK, bodyOK := multipartBody(t, part{name: "a", data: strings.Repeat("x", 1000)})
	lim := Limits{MaxBody: 1000, MaxFiles: 2, MaxFields: 2}
	tests := []struct {
		name string
		ctx  *fasthttp.RequestCtx
		want error
	}{
		{"body too large", newCtx("POST", "/", form, bytes.Repeat([]byte("a"), 1001)), ErrBodyTooLarge},
		{"multipart too large", newCtx("POST", "/", mpOK, bodyOK), ErrBodyTooLarge},
		{"bad escape", newCtx("POST", "/", form, []byte("a=%zz")), ErrMalformed},
		{"bad escape in name", newCtx("POST", "/", form, []byte("%=1")), ErrMalformed},
		{"bad query escape", newCtx("POST", "/?f=%", "", nil), ErrMalformed},
		{"too many form fields", newCtx("POST", "/", form, []byte("a=1&b=2&c=3")), ErrMalformed},
		{"query counts toward fields", newCtx("POST", "/?f=1&g=2", form, []byte("a=1")), ErrMalformed},
		{"too many files", newCtx("POST", "/", mpFiles, bodyFiles), ErrMalformed},
		{"too many multipart fields", newCtx("POST", "/", mpFields, bodyFields), ErrMalformed},
		{"duplicate file part", newCtx("POST", "/", mpDup, bodyDup), ErrMalformed},
		{"no boundary", newCtx("POST", "/", "multipart/form-data", []byte("x")), ErrMalformed},
		{"truncated multipart", newCtx("POST", "/", "multipart/form-data; boundary=zz", []byte("--zz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nabc")), ErrMalformed},
		{"bad content type", newCtx("POST", "/", "multipart/form-data; boundary", nil), ErrMalformed},
	}
	gz := newCtx("POST", "/", form, []byte("a=1"))
	gz.Request.Header.Set("Content-Encoding", "gzip")
	tests = append(tests, struct {
		name string
		ctx  *fasthttp.RequestCtx
		want error
	}{"content encoding", gz, ErrMalformed})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ReadRequest(tt.ctx, lim)
			if !errors.Is(err, tt.want) {
				t.Fatalf("ReadRequest = %+v, %v; want %v", r, err, tt.want)
			}
		})
	}
}

// countingReader yields n bytes of 'a' and records how many were read.
type countingReader struct {
	left, read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.left)
	for i := range n {
		p[i] = 'a'
	}
	c.left -= n
	c.read += n
	return n, nil
}

func TestReadRequestStreamedBodyIsBounded(t *testing.T) {
	ctx := newCtx("POST", "/", "application/x-www-form-urlencoded", nil)
	src := &countingReader{left: 10 << 20}
	ctx.Request.SetBodyStream(src, -1)
	_, err := ReadRequest(ctx, Limits{MaxBody: 1000})
	if !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("err = %v, want ErrBodyTooLarge", err)
	}
	if src.read > 1001 {
		t.Fatalf("read %d bytes of a stream for a 1000-byte limit", src.read)
	}

	ctx = newCtx("POST", "/", "application/x-www-form-urlencoded", nil)
	ctx.Request.SetBodyStream(strings.NewReader("a=1&b=2"), -1)
	r, err := ReadRequest(ctx, Limits{MaxBody: 1000})
	if err != nil || r.Form.Get("b") != "2" {
		t.Fatalf("streamed form = %v, %v", r, err)
	}
}

func TestReadRequestDeclaredLengthTooLarge(t *testing.T) {
	ctx := newCtx("POST", "/", "application/x-www-form-urlencoded", nil)
	src := &countingReader{left: 10}
	ctx.Request.SetBodyStream(src, 1<<30)
	if _, err := ReadRequest(ctx, Limits{MaxBody: 1000}); !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("err = %v, want ErrBodyTooLarge", err)
	}
	if src.read != 0 {
		t.Fatalf("read %d bytes of a body whose declared length is over the limit", src.read)
	}
}

// TestReadRequestOwnsItsMemory decodes requests, then lets fasthttp reuse
// its buffers for another request, as it does after a handler returns, and
// checks nothing decoded changed.
func TestReadRequestOwnsItsMemory(t *testing.T) {
	ct, mpBody := multipartBody(t,
		part{name: "cookie", data: "cookie-value-0001"},
		part{name: "cloud.zip", filename: "cloud.zip", contentType: "application/octet-stream", data: "ZIPDATA-ORIGINAL"},
	)
	cases := []struct {
		name        string
		uri, ct     string
		body        []byte
		contentType string
	}{
		{"urlencoded", "/client_requester.php?f=pre_auth&q=query-value", "application/x-www-form-urlencoded",
			[]byte("login=SouL&A=abcdef&arr[]=one&arr[]=two"), ""},
		{"multipart", "/master/storage/store?f=x", ct, mpBody, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newCtx("POST", tc.uri, tc.ct, append([]byte(nil), tc.body...))
			r, err := ReadRequest(ctx, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			snapshot := deepCopyRequest(r)

			// Scribble over every buffer fasthttp handed out, then reuse
			// the request for a different one of the same sizes.
			for _, b := range [][]byte{ctx.Request.Body(), ctx.Path(), ctx.URI().QueryString(), ctx.Request.Header.ContentType(), ctx.UserAgent()} {
				for i := range b {
					b[i] = '#'
				}
			}
			ctx.Request.Reset()
			ctx.Request.Header.SetMethod("PUT")
			ctx.Request.SetRequestURI("/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz?f=yyyyyyyyyyyyyyyyyyyyyyyy")
			ctx.Request.Header.SetUserAgent(strings.Repeat("u", len(stockAgent)))
			ctx.Request.SetBody(bytes.Repeat([]byte("Z"), len(tc.body)))
			ctx.PostArgs()
			ctx.QueryArgs()

			if !reflect.DeepEqual(r, snapshot) {
				t.Fatalf("decoded request changed after fasthttp reused its buffers:\n got %#v\nwant %#v", r, snapshot)
			}
		})
	}
}

func deepCopyRequest(r *Request) *Request {
	// Strings are cloned byte by byte: a snapshot sharing memory with r
	// would change along with it and prove nothing.
	c := strings.Clone
	cp := Request{
		Method: c(r.Method), Path: c(r.Path), RemoteIP: c(r.RemoteIP),
		UserAgent: c(r.UserAgent), ContentType: c(r.ContentType),
	}
	cloneValues := func(v Values) Values {
		out := Values{}
		for k, vs := range v {
			for _, s := range vs {
				out[c(k)] = append(out[c(k)], c(s))
			}
		}
		return out
	}
	cp.Query, cp.Form = cloneValues(r.Query), cloneValues(r.Form)
	cp.Files = map[string]File{}
	for k, f := range r.Files {
		cp.Files[c(k)] = File{Name: c(f.Name), Filename: c(f.Filename), ContentType: c(f.ContentType), Data: bytes.Clone(f.Data)}
	}
	return &cp
}

func FuzzReadRequest(f *testing.F) {
	_, mp := multipartBody(f,
		part{name: "cookie", data: "c"},
		part{name: "cloud.zip", filename: "cloud.zip", contentType: "application/octet-stream", data: "PK"},
	)
	f.Add(true, []byte("login=SouL&A=ab%2B&offenderName[]=x&offenderName[]=y"), "f=pre_auth")
	f.Add(false, mp, "")
	f.Add(false, []byte("--fuzzbound\r\nContent-Disposition: form-data; name=\"a\"; filename=\"b\"\r\n\r\nx\r\n--fuzzbound--\r\n"), "")
	f.Add(true, []byte("%zz=&&==&a=%00"), "%")
	const maxBody, maxFiles, maxFields = 512, 2, 8
	f.Fuzz(func(t *testing.T, urlencoded bool, body []byte, query string) {
		ct := "application/x-www-form-urlencoded"
		if !urlencoded {
			// The seed multipart body uses the writer's random boundary;
			// fixed-boundary inputs exercise the parser more.
			ct = "multipart/form-data; boundary=fuzzbound"
			if i := bytes.Index(body, []byte("\r\n")); bytes.HasPrefix(body, []byte("--")) && i > 2 {
				ct = "multipart/form-data; boundary=" + string(body[2:i])
			}
		}
		var req fasthttp.Request
		req.Header.SetMethod("POST")
		req.SetRequestURI("/client_requester.php")
		req.URI().SetQueryString(query)
		req.Header.SetContentType(ct)
		req.SetBody(body)
		ctx := &fasthttp.RequestCtx{}
		ctx.Init(&req, clientAddr, nil)

		r, err := ReadRequest(ctx, Limits{MaxBody: maxBody, MaxFiles: maxFiles, MaxFields: maxFields})
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrBodyTooLarge) {
				t.Fatalf("untyped error %v", err)
			}
			if errors.Is(err, ErrBodyTooLarge) && len(body) <= maxBody {
				t.Fatalf("ErrBodyTooLarge for %d bytes", len(body))
			}
			return
		}
		if len(body) > maxBody {
			t.Fatalf("accepted a %d-byte body over the %d limit", len(body), maxBody)
		}
		fields := 0
		for _, vs := range r.Query {
			fields += len(vs)
		}
		for _, vs := range r.Form {
			fields += len(vs)
		}
		if fields > maxFields || len(r.Files) > maxFiles {
			t.Fatalf("limits broken: %d fields, %d files", fields, len(r.Files))
		}
		stored := 0
		for _, vs := range r.Form {
			for _, v := range vs {
				stored += len(v)
			}
		}
		for _, f := range r.Files {
			stored += len(f.Data)
		}
		if stored > maxBody {
			t.Fatalf("kept %d bytes from a %d-byte body", stored, len(body))
		}
	})
}

// TestRequestStringBounded: the summary a log line carries keeps at most
// 32 bytes of the path and the function, which the client chose (issue
// 36 item 1).
func TestRequestStringBounded(t *testing.T) {
	huge := strings.Repeat("a", 1<<20)
	r := &Request{Method: "POST", Path: "/" + huge, RemoteIP: "192.0.2.1", Query: Values{"f": {huge}}, Form: Values{}}
	if s := r.String(); len(s) > 200 {
		t.Errorf("String of a request with a 1 MiB path and function: %d bytes, want at most 200", len(s))
	}
}

// TestReadStreamGrowsAsBytesArrive: a streamed body takes memory as its
// bytes arrive, not from its declared length, and one that ends early is
// malformed, never served short.
func TestReadStreamGrowsAsBytesArrive(t *testing.T) {
	sent := bytes.Repeat([]byte("x"), 100<<10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readStream(bytes.NewReader(sent), 1<<30, 1<<31, nil) // declares 1 GiB, sends 100 KiB
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("a body that ended after 100 KiB of 1 GiB: %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("reading 100 KiB of a declared 1 GiB allocated %d bytes", grew)
	}
	for _, tc := range []struct {
		cl    int
		limit int64
		want  error
	}{
		{len(sent), 1 << 20, nil},
		{-1, 1 << 20, nil},                     // chunked: up to its end
		{-1, 50 << 10, ErrBodyTooLarge},        // chunked, beyond the limit
		{len(sent) + 1, 1 << 20, ErrMalformed}, // cut short
	} {
		got, err := readStream(bytes.NewReader(sent), tc.cl, tc.limit, nil)
		if !errors.Is(err, tc.want) || (err == nil && !bytes.Equal(got, sent)) {
			t.Errorf("cl %d, limit %d: %d bytes, %v; want %v", tc.cl, tc.limit, len(got), err, tc.want)
		}
	}
}

// Value reads a field as Decode does: the form's when the form has it,
// else the query's.
func TestRequestValue(t *testing.T) {
	// A field sent twice is read as Decode reads it: the last value wins
	// (as in PHP). Value read the first: a login sent as
	// login=nobody&login=player was routed by "nobody" in a cluster and
	// served as "player" (a review of the matches area).
	r := &Request{Query: Values{"login": {"q"}, "only": {"query", "query2"}, "twice": {"q1"}},
		Form: Values{"login": {"form"}, "empty": {}, "twice": {"first", "last"}}}
	for name, want := range map[string]string{"login": "form", "only": "query2", "empty": "", "none": "", "twice": "last"} {
		if got := r.Value(name); got != want {
			t.Errorf("Value(%q) = %q, want %q", name, got, want)
		}
	}
	var decoded struct {
		Login string `form:"login"`
		Only  string `form:"only"`
		Twice string `form:"twice"`
	}
	if err := r.Decode(&decoded); err != nil || decoded.Login != r.Value("login") || decoded.Only != r.Value("only") || decoded.Twice != r.Value("twice") {
		t.Errorf("Decode gives %+v (%v); Value login %q, only %q, twice %q", decoded, err, r.Value("login"), r.Value("only"), r.Value("twice"))
	}
}
