package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"reflect"
	"strings"
	"testing"
)

// mimeMultipart is the parseMultipart that read bodies through
// mime/multipart before the in-memory parser, kept as the reference for
// FuzzMultipartDifferential and BenchmarkMultipart. With raw, parts are
// read with NextRawPart, which leaves quoted-printable data as sent, as
// parseMultipart does; without, it is the old code exactly (but for %w
// where it printed an error with %v).
func mimeMultipart(raw bool) func(r *Request, body []byte, boundary string, fields *int, lim Limits) error {
	return func(r *Request, body []byte, boundary string, fields *int, lim Limits) error {
		mr := multipart.NewReader(bytes.NewReader(body), boundary)
		for {
			next := mr.NextPart
			if raw {
				next = mr.NextRawPart
			}
			part, err := next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%w: multipart: %w", ErrMalformed, err)
			}
			name := part.FormName()
			if name == "" {
				// Not a form field (no Content-Disposition name): PHP ignores
				// such parts too.
				part.Close()
				continue
			}
			data, err := io.ReadAll(part)
			part.Close()
			if err != nil {
				return fmt.Errorf("%w: multipart part %q: %w", ErrMalformed, name, err)
			}
			if filename := part.FileName(); filename != "" {
				if len(r.Files) >= lim.MaxFiles {
					return fmt.Errorf("%w: more than %d files", ErrMalformed, lim.MaxFiles)
				}
				if _, dup := r.Files[name]; dup {
					return fmt.Errorf("%w: two file parts named %q", ErrMalformed, name)
				}
				r.Files[name] = File{
					Name:        name,
					Filename:    filename,
					ContentType: part.Header.Get("Content-Type"),
					Data:        data,
				}
				continue
			}
			if *fields++; *fields > lim.MaxFields {
				return fmt.Errorf("%w: more than %d fields", ErrMalformed, lim.MaxFields)
			}
			r.Form[name] = append(r.Form[name], string(data))
		}
	}
}

type multipartParser = func(r *Request, body []byte, boundary string, fields *int, lim Limits) error

// runMultipart parses body with parse into a fresh Request's Form and
// Files.
func runMultipart(parse multipartParser, body []byte, boundary string, lim Limits) (*Request, error) {
	r := &Request{Form: Values{}, Files: map[string]File{}}
	fields := 0
	err := parse(r, body, boundary, &fields, lim)
	return r, err
}

// curlBoundary and curlStoreBody are a cloud store as libcurl's form API
// writes it (the game client's HTTP library): a boundary of dashes and
// hex, each part with Content-Disposition and the file with Content-Type.
const curlBoundary = "------------------------d74496d66958873e"

func curlStoreBody() []byte {
	return []byte("--" + curlBoundary + "\r\n" +
		"Content-Disposition: form-data; name=\"cookie\"\r\n\r\n" +
		"5f0c1bd2e3a94f6b8c7d9e0a1b2c3d4e\r\n" +
		"--" + curlBoundary + "\r\n" +
		"Content-Disposition: form-data; name=\"bucket\"\r\n\r\n" +
		"hon-game-configs\r\n" +
		"--" + curlBoundary + "\r\n" +
		"Content-Disposition: form-data; name=\"file_modify_time\"\r\n\r\n" +
		"2024-05-06 07:08:09\r\n" +
		"--" + curlBoundary + "\r\n" +
		"Content-Disposition: form-data; name=\"cloud.zip\"; filename=\"cloud.zip\"\r\n" +
		"Content-Type: application/octet-stream\r\n\r\n" +
		"PK\x03\x04\x14\x00\x00\x00\x08\x00\r\n--" + curlBoundary[:10] + "\x00\xff\r\n" +
		"--" + curlBoundary + "--\r\n")
}

// mpCase is a body with its boundary; the name says what it shows.
type mpCase struct {
	name, boundary, body string
}

// multipartCases are bodies both parsers accept (unless refused says
// otherwise); they seed FuzzMultipartDifferential.
var multipartCases = []mpCase{
	{"minimal", "b", "--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b--\r\n"},
	{"close at end of body without line end", "b", "--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b--"},
	{"preamble and epilogue", "b", "preamble line\r\n--b-not\r\n\r\n--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b--\r\nepilogue\r\n--b\r\n"},
	{"transport padding", "b", "--b \t\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b\t\r\nContent-Disposition: form-data; name=c\r\n\r\ny\r\n--b-- \t\r\n"},
	{"bare LF line ends", "b", "--b\nContent-Disposition: form-data; name=a\n\nx\r\n--b\nContent-Disposition: form-data; name=f; filename=g\nContent-Type: text/plain\n\ny\n--b--\n"},
	{"LF header lines in a CRLF body", "b", "--b\r\nContent-Disposition: form-data; name=a\n\nx\r\n--b--\r\n"},
	{"empty data directly after the header", "b", "--b\r\nContent-Disposition: form-data; name=a\r\n\r\n--b\r\nContent-Disposition: form-data; name=c\r\n\r\n--b--"},
	{"boundary-like data", "b", "--b\r\nContent-Disposition: form-data; name=a\r\n\r\n--bx\r\n--b-x\r\n--b-\r\n\r\n--b--\r\n"},
	{"close delimiter in the preamble", "b", "--b--\r\n--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b--\r\n"},
	{"no parts", "b", "--b--"},
	{"header names without case", "b", "--b\r\ncontent-disposition: form-data; name=a; filename=f\r\nCONTENT-TYPE:text/plain\r\nX-Other: 1\r\n\r\nx\r\n--b--\r\n"},
	{"first Content-Disposition and Content-Type win", "b", "--b\r\nContent-Type: a/b\r\nContent-Disposition: form-data; name=a; filename=f\r\nContent-Disposition: form-data; name=z\r\nContent-Type: c/d\r\n\r\nx\r\n--b--\r\n"},
	{"continued header", "b", "--b\r\nContent-Disposition: form-data;\r\n name=a;\r\n\tfilename=f\r\nContent-Type: text/plain\r\n \r\n\r\nx\r\n--b--\r\n"},
	{"header name with a space never matches", "b", "--b\r\nContent-Disposition : form-data; name=a\r\nContent-Disposition: form-data; name=b\r\n\r\nx\r\n--b--\r\n"},
	{"quoted strings and escapes", "b", "--b\r\nContent-Disposition: form-data; name=\"a \\\"q\\\" b\"; filename=\"C:\\dir\\f.txt\"\r\n\r\nx\r\n--b--\r\n"},
	{"RFC 2231 filename", "b", "--b\r\nContent-Disposition: form-data; name=a; filename*=UTF-8''%E2%82%AC%20rates.zip\r\n\r\nx\r\n--b--\r\n"},
	{"RFC 2231 continuations", "b", "--b\r\nContent-Disposition: form-data; name*0=na; name*1=me; filename*0*=UTF-8''a%20; filename*1=b\r\n\r\nx\r\n--b--\r\n"},
	{"directory in filename", "b", "--b\r\nContent-Disposition: form-data; name=a; filename=\"../../etc/passwd\"\r\n\r\nx\r\n--b--\r\n"},
	{"parts without a form name are ignored", "b", "--b\r\n\r\nno header\r\n--b\r\nContent-Disposition: attachment; name=a\r\n\r\nx\r\n--b\r\nContent-Disposition: form-data; filename=f\r\n\r\nx\r\n--b\r\nContent-Disposition: form-data; name=\"\r\n\r\nx\r\n--b\r\nContent-Disposition: form-data; name=a; name=b\r\n\r\nx\r\n--b\r\nContent-Disposition: form-data; name=kept\r\n\r\nx\r\n--b--\r\n"},
	{"repeated fields keep their order", "b", "--b\r\nContent-Disposition: form-data; name=\"a[]\"\r\n\r\n1\r\n--b\r\nContent-Disposition: form-data; name=\"a[]\"\r\n\r\n2\r\n--b\r\nContent-Disposition: form-data; name=\"a[]\"; filename=\"\"\r\n\r\n3\r\n--b--\r\n"},
	{"quoted-printable kept as sent", "b", "--b\r\nContent-Disposition: form-data; name=a\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\ncaf=C3=A9=\r\n!\r\n--b--\r\n"},
	{"binary data", "b", "--b\r\nContent-Disposition: form-data; name=f; filename=z\r\n\r\n\x00\r\r\n\n--\r\n-b\r\n--b--\r\n"},
	{"boundary with a CR", "a\r", "--a\r\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r--a\r\n--a\r--\r\n"},
	{"boundary starting with dashes", "--", "----\r\nContent-Disposition: form-data; name=a\r\n\r\n-----x\r\n------\r\n"},
	{"boundary with specials", `a'()+_,-./:=? z`, "--a'()+_,-./:=? z\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--a'()+_,-./:=? z--\r\n"},
}

// multipartRefused are bodies both parsers refuse; the name says why.
var multipartRefused = []mpCase{
	{"empty body", "b", ""},
	{"no delimiter line", "b", "just text\r\n"},
	{"delimiter at end of body", "b", "--b"},
	{"no close delimiter", "b", "--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx"},
	{"no close delimiter after a nameless part", "b", "--b\r\n\r\nx"},
	{"delimiter without line end", "b", "--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b"},
	{"close delimiter with junk", "b", "--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b--x\r\n"},
	{"LF close delimiter in a CRLF body", "b", "--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b--\n"},
	{"delimiter with junk after padding", "b", "--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b x\r\n--b--\r\n"},
	{"header line without colon", "b", "--b\r\nContent-Disposition form-data\r\n\r\nx\r\n--b--\r\n"},
	{"header starts with white space", "b", "--b\r\n Content-Disposition: form-data; name=a\r\n\r\nx\r\n--b--\r\n"},
	{"empty header name", "b", "--b\r\n: x\r\n\r\nx\r\n--b--\r\n"},
	{"bad byte in header name", "b", "--b\r\nContent(Disposition): x\r\n\r\nx\r\n--b--\r\n"},
	{"control byte in header value", "b", "--b\r\nContent-Disposition: form-data; name=a\x00\r\n\r\nx\r\n--b--\r\n"},
	{"CR in header value", "b", "--b\r\nContent-Disposition: form-data; name=a\r\r\n\r\nx\r\n--b--\r\n"},
	{"boundary with a line feed", "b\n", "--b\n\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b\n--\r\n"},
}

// TestMultipartCases checks each case against mime/multipart, read raw.
func TestMultipartCases(t *testing.T) {
	lim := DefaultLimits
	for _, tc := range multipartCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runMultipart(parseMultipart, []byte(tc.body), tc.boundary, lim)
			want, wantErr := runMultipart(mimeMultipart(true), []byte(tc.body), tc.boundary, lim)
			if err != nil || wantErr != nil {
				t.Fatalf("parseMultipart: %v; mime/multipart: %v", err, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("parseMultipart =\n%#v\nmime/multipart =\n%#v", got, want)
			}
			if len(got.Form)+len(got.Files) == 0 && tc.name != "no parts" && tc.name != "close delimiter in the preamble" {
				t.Fatal("nothing read")
			}
		})
	}
	for _, tc := range multipartRefused {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runMultipart(parseMultipart, []byte(tc.body), tc.boundary, lim)
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("parseMultipart = %#v, %v; want ErrMalformed", got, err)
			} else {
				t.Log(err)
			}
			if _, err := runMultipart(mimeMultipart(false), []byte(tc.body), tc.boundary, lim); err == nil {
				t.Errorf("mime/multipart accepts it")
			}
		})
	}
}

func TestMultipartDetails(t *testing.T) {
	body := func(name string) string {
		for _, tc := range multipartCases {
			if tc.name == name {
				return tc.body
			}
		}
		t.Fatalf("no case %q", name)
		return ""
	}
	read := func(t *testing.T, boundary, body string) *Request {
		t.Helper()
		r, err := runMultipart(parseMultipart, []byte(body), boundary, DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	t.Run("quoted-printable is not decoded", func(t *testing.T) {
		qp := "--b\r\nContent-Disposition: form-data; name=a\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\ncaf=C3=A9=\r\n!\r\n--b\r\n" +
			"Content-Disposition: form-data; name=bad\r\nContent-Transfer-Encoding: Quoted-Printable\r\n\r\n=ZZ\x01\r\n--b--\r\n"
		r := read(t, "b", qp)
		if got := r.Form.Get("a"); got != "caf=C3=A9=\r\n!" {
			t.Errorf("a = %q, want the part as sent", got)
		}
		if got := r.Form.Get("bad"); got != "=ZZ\x01" {
			t.Errorf("bad = %q, want the part as sent", got)
		}
		// mime/multipart decoded it, and refused what did not decode.
		old, err := runMultipart(mimeMultipart(false), []byte(qp[:strings.Index(qp, "--b\r\nContent-Disposition: form-data; name=bad")]+"--b--"), "b", DefaultLimits)
		if err != nil || old.Form.Get("a") != "café!" {
			t.Errorf("mime/multipart read %v, %v", old, err)
		}
		if _, err := runMultipart(mimeMultipart(false), []byte(qp), "b", DefaultLimits); err == nil {
			t.Error("mime/multipart accepted an unescaped control byte")
		}
	})
	t.Run("file fields", func(t *testing.T) {
		r := read(t, "b", body("first Content-Disposition and Content-Type win"))
		want := map[string]File{"a": {Name: "a", Filename: "f", ContentType: "a/b", Data: []byte("x")}}
		if !reflect.DeepEqual(r.Files, want) {
			t.Errorf("Files = %#v, want %#v", r.Files, want)
		}
	})
	t.Run("RFC 2231 and escapes", func(t *testing.T) {
		if f := read(t, "b", body("RFC 2231 filename")).Files["a"]; f.Filename != "€ rates.zip" {
			t.Errorf("filename* = %q", f.Filename)
		}
		if f := read(t, "b", body("RFC 2231 continuations")).Files["name"]; f.Filename != "a b" {
			t.Errorf("filename*0*, filename*1 = %q", f.Filename)
		}
		r := read(t, "b", body("quoted strings and escapes"))
		if f := r.Files[`a "q" b`]; f.Filename != `C:\dir\f.txt` {
			t.Errorf("escaped names: %#v", r.Files)
		}
	})
	t.Run("continued header", func(t *testing.T) {
		r := read(t, "b", body("continued header"))
		if f := r.Files["a"]; f.Filename != "f" || f.ContentType != "text/plain " {
			t.Errorf("continued header read as %#v", f)
		}
	})
	t.Run("directory in filename", func(t *testing.T) {
		if f := read(t, "b", body("directory in filename")).Files["a"]; f.Filename != "passwd" {
			t.Errorf("filename = %q", f.Filename)
		}
	})
	t.Run("LF body keeps a CR before the delimiter", func(t *testing.T) {
		r := read(t, "b", body("bare LF line ends"))
		if r.Form.Get("a") != "x\r" || string(r.Files["f"].Data) != "y" {
			t.Errorf("read %#v", r)
		}
	})
}

// TestMultipartHeaderBound shows the bound on a part's header block, the
// one place parseMultipart refuses what mime/multipart accepted.
func TestMultipartHeaderBound(t *testing.T) {
	// block is a body whose one part has a header block of n bytes.
	block := func(n int) string {
		cd := "Content-Disposition: form-data; name=a\r\n"
		pad := n - len(cd) - len("X: \r\n") - len("\r\n")
		return "--b\r\n" + cd + "X: " + strings.Repeat("q", pad) + "\r\n\r\nx\r\n--b--\r\n"
	}
	ok, over := block(maxPartHeader), block(maxPartHeader+1)
	if _, err := runMultipart(parseMultipart, []byte(ok), "b", DefaultLimits); err != nil {
		t.Fatalf("a %d-byte header block: %v", maxPartHeader, err)
	}
	_, err := runMultipart(parseMultipart, []byte(over), "b", DefaultLimits)
	if !errors.Is(err, ErrMalformed) || !errors.Is(err, errPartHeaderTooLarge) {
		t.Fatalf("a %d-byte header block: %v", maxPartHeader+1, err)
	}
	if _, err := runMultipart(mimeMultipart(false), []byte(over), "b", DefaultLimits); err != nil {
		t.Fatalf("mime/multipart: %v", err)
	}
	// Without the empty line, the bound still stops the search.
	_, err = runMultipart(parseMultipart, []byte("--b\r\n"+strings.Repeat("X: y\r\n", maxPartHeader)), "b", DefaultLimits)
	if !errors.Is(err, errPartHeaderTooLarge) {
		t.Fatalf("endless header: %v", err)
	}
}

// TestMultipartTruncatedHeader: mime/multipart took a body that ends in
// a part's header block as ending before that part; parseMultipart
// refuses it as truncated.
func TestMultipartTruncatedHeader(t *testing.T) {
	first := "--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n"
	for _, body := range []string{
		first + "--b\r\n",
		first + "--b\r\nContent-Disposition: form-data; name=c\r\n",
		first + "--b\r\nContent-Disposition: form-data; name=c\r\n  continued",
		first + "--b\r\nContent-Disposition: form-da",
	} {
		_, err := runMultipart(parseMultipart, []byte(body), "b", DefaultLimits)
		if !errors.Is(err, ErrMalformed) || !errors.Is(err, errHeaderNotEnded) {
			t.Errorf("%q: %v", body, err)
		}
		old, err := runMultipart(mimeMultipart(false), []byte(body), "b", DefaultLimits)
		if err != nil || len(old.Form) != 1 || old.Form.Get("a") != "x" {
			t.Errorf("%q: mime/multipart read %v, %v", body, old, err)
		}
	}
}

// TestMultipartLongLines shows bodies mime/multipart refused for lines
// over its 4 KiB buffer, which parseMultipart reads.
func TestMultipartLongLines(t *testing.T) {
	part := "Content-Disposition: form-data; name=a\r\n\r\nx\r\n"
	long := strings.Repeat("p", 5000)
	for name, c := range map[string]mpCase{
		"preamble":   {boundary: "b", body: long + "\r\n--b\r\n" + part + "--b--\r\n"},
		"padding":    {boundary: "b", body: "--b" + strings.Repeat(" ", 5000) + "\r\n" + part + "--b--\r\n"},
		"boundary":   {boundary: long, body: "--" + long + "\r\n" + part + "--" + long + "--\r\n"},
		"after part": {boundary: "b", body: "--b\r\n" + part + "--b" + strings.Repeat("\t", 5000) + "\r\n" + part + "--b--\r\n"},
	} {
		r, err := runMultipart(parseMultipart, []byte(c.body), c.boundary, DefaultLimits)
		if err != nil || r.Form.Get("a") != "x" {
			t.Errorf("%s: %v, %v", name, r, err)
		}
		if _, err := runMultipart(mimeMultipart(false), []byte(c.body), c.boundary, DefaultLimits); !errors.Is(err, bufio.ErrBufferFull) {
			t.Errorf("%s: mime/multipart: %v", name, err)
		}
	}
}

// FuzzMultipartDifferential checks parseMultipart against mime/multipart:
// whatever mime/multipart accepts, parseMultipart accepts with the same
// fields and files, read from data as sent (mime/multipart's NextRawPart:
// quoted-printable is not decoded). The other way, parseMultipart may
// accept only what mime/multipart refused for a line over its buffer or
// for quoted-printable that did not decode, and refuse only a header
// block over maxPartHeader. What parseMultipart keeps must not refer to
// the body.
func FuzzMultipartDifferential(f *testing.F) {
	for _, tc := range append(multipartCases, multipartRefused...) {
		f.Add([]byte(tc.body), tc.boundary)
	}
	ct, body := cloudStoreBody()
	f.Add(body, ct[strings.Index(ct, "=")+1:])
	f.Add(curlStoreBody(), curlBoundary)
	// The bodies of the ReadRequest tests and FuzzReadRequest's seeds.
	for _, parts := range [][]part{
		{
			{name: "cookie", data: "0123456789abcdef0123456789abcdef"},
			{name: "cloud.zip", filename: "cloud.zip", contentType: "application/octet-stream", data: "PK\x03\x04\x00\xff binary \r\n--not-a-boundary"},
			{name: "", data: "no name: ignored"},
		},
		{{name: "a", filename: "f", data: "x"}, {name: "b", filename: "f", data: "x"}, {name: "c", filename: "f", data: "x"}, {name: "d", filename: "f", data: "x"}},
		{{name: "a", data: "1"}, {name: "b", data: "2"}, {name: "c", data: "3"}, {name: "a", data: "4"}},
		{{name: "f", filename: "1", data: "x"}, {name: "f", filename: "2", data: "y"}},
	} {
		ct, body := multipartBody(f, parts...)
		_, params, err := mime.ParseMediaType(ct)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body, params["boundary"])
	}
	f.Add([]byte("--fuzzbound\r\nContent-Disposition: form-data; name=\"a\"; filename=\"b\"\r\n\r\nx\r\n--fuzzbound--\r\n"), "fuzzbound")
	f.Add([]byte("--zz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nabc"), "zz")

	lim := Limits{MaxBody: 1 << 20, MaxFiles: 3, MaxFields: 6}
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		if boundary == "" || len(body) > 1<<17 {
			return // ReadRequest refuses an empty boundary before parsing
		}
		work := bytes.Clone(body)
		got, err := runMultipart(parseMultipart, work, boundary, lim)
		for i := range work {
			work[i] = '#' // fasthttp reuses its buffers
		}
		_, oldErr := runMultipart(mimeMultipart(false), body, boundary, lim)
		raw, rawErr := runMultipart(mimeMultipart(true), body, boundary, lim)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("untyped error %v", err)
			}
			if oldErr == nil && !errors.Is(err, errPartHeaderTooLarge) && !errors.Is(err, errHeaderNotEnded) {
				t.Fatalf("refused what mime/multipart accepts: %v", err)
			}
			return
		}
		switch {
		case rawErr == nil:
			if !reflect.DeepEqual(got, raw) {
				t.Fatalf("parseMultipart =\n%#v\nmime/multipart (raw) =\n%#v", got, raw)
			}
		case oldErr == nil:
			t.Fatalf("mime/multipart accepts but its raw reading refuses: %v", rawErr)
		case !errors.Is(rawErr, bufio.ErrBufferFull):
			t.Fatalf("accepted what mime/multipart refuses: %v", rawErr)
		}
	})
}

// BenchmarkMultipart compares parseMultipart with the mime/multipart
// reading it replaced, on a cloud store body.
func BenchmarkMultipart(b *testing.B) {
	ct, body := cloudStoreBody()
	boundary := ct[strings.Index(ct, "=")+1:]
	for _, bc := range []struct {
		name  string
		parse multipartParser
	}{{"wire", parseMultipart}, {"mime", mimeMultipart(false)}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := runMultipart(bc.parse, body, boundary, DefaultLimits)
				if err != nil || len(r.Files) != 1 || len(r.Form) != 3 {
					b.Fatal(r, err)
				}
			}
		})
	}
}

// FuzzFormDisposition checks formDisposition against mime.ParseMediaType:
// whatever it reads, ParseMediaType reads the same, and what it leaves
// alone ParseMediaType still reads.
func FuzzFormDisposition(f *testing.F) {
	for _, s := range []string{
		`form-data; name="cookie"`,
		`form-data; name="cloud.zip"; filename="cloud.zip"`,
		`Form-Data ;name=a;FILENAME = "" ; `,
		`form-data; name=a;`,
		`form-data;`,
		`form-data`,
		`form-data; name="a\"b"`,
		`form-data; name="a"; name="a"`,
		`form-data; name="a"; name="b"`,
		`form-data; name*=UTF-8''%E2%82%AC`,
		`form-data; name="é"; filename="a b/c"`,
		"form-data;\vname=a",
		"form-data; name=a\u00a0",
		`attachment; name=a`,
		`form-data; name=a; size=3`,
		`form-data; name={a}`,
		`form-data; name="unterminated`,
		`form-datax; name=a`,
		`form-data; ; name=a`,
		`form-data; name=a b`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		name, filename, ok := formDisposition(v)
		if !ok {
			return
		}
		typ, params, err := mime.ParseMediaType(v)
		if err != nil || typ != "form-data" {
			t.Fatalf("formDisposition(%q) = %q, %q; ParseMediaType: %q, %v", v, name, filename, typ, err)
		}
		if params["name"] != name || params["filename"] != filename {
			t.Fatalf("formDisposition(%q) = %q, %q; ParseMediaType: %q", v, name, filename, params)
		}
	})
}

func TestFormDispositionTakesPlainShapes(t *testing.T) {
	for _, v := range []string{
		`form-data; name="cookie"`,
		`form-data; name="cloud.zip"; filename="cloud.zip"`,
		`Form-Data ;name=a;FILENAME = "" ; `,
		`form-data; name="é"; filename="a b/c"`,
	} {
		if _, _, ok := formDisposition(v); !ok {
			t.Errorf("%q left to ParseMediaType", v)
		}
	}
}
