package client_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/client"
)

// sent is one request as the server received it.
type sent struct {
	path, contentType string
	contentLength     int64
	body              []byte
}

// recorder starts a loopback server that records every request and
// answers an empty PHP array.
func recorder(t *testing.T) (*client.Client, <-chan sent) {
	t.Helper()
	got := make(chan sent, 8)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read body: %v", err)
		}
		got <- sent{path: r.URL.RequestURI(), contentType: r.Header.Get("Content-Type"), contentLength: r.ContentLength, body: b}
		w.Write([]byte("a:0:{}"))
	}))
	t.Cleanup(ts.Close)
	c := client.New(ts.URL)
	c.HTTP.Timeout = 10 * time.Second
	return c, got
}

func receive(t *testing.T, got <-chan sent) sent {
	t.Helper()
	select {
	case s := <-got:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no request received")
		return sent{}
	}
}

// storeForm is a cloud store request's form, as the load tester sends it.
var (
	storeFields = url.Values{"cookie": {"0123456789abcdef0123456789abcdef"}, "bucket": {"hon-game-configs"},
		"file_modify_time": {"2026-01-02 03:04:05"}}
	storeFile = client.FilePart{Field: "cloud.zip", Filename: "cloud.zip", Data: []byte("PK\x03\x04 not really a zip \x00\xff\r\n--")}
)

// boundaryOf reads the boundary a multipart Content-Type names.
func boundaryOf(t *testing.T, contentType string) string {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		t.Fatalf("Content-Type %q: %s %v %v", contentType, mt, params, err)
	}
	return params["boundary"]
}

// reference encodes fields and files with mime/multipart directly, the way
// PostMultipart always has (fields by sorted name, then the files), with
// the given boundary.
func reference(t *testing.T, boundary string, fields url.Values, files ...client.FilePart) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary(boundary); err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := range fields {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		for _, v := range fields[k] {
			w.WriteField(k, v)
		}
	}
	for _, f := range files {
		p, err := w.CreatePart(map[string][]string{
			"Content-Disposition": {fmt.Sprintf(`form-data; name=%q; filename=%q`, f.Field, f.Filename)},
			"Content-Type":        {"application/octet-stream"},
		})
		if err != nil {
			t.Fatal(err)
		}
		p.Write(f.Data)
	}
	w.Close()
	return buf.Bytes()
}

// part is a decoded part of a multipart body.
type part struct {
	name, filename, contentType string
	data                        []byte
}

// decodeParts reads body with mime/multipart, as a server does.
func decodeParts(t *testing.T, contentType string, body []byte) []part {
	t.Helper()
	r := multipart.NewReader(bytes.NewReader(body), boundaryOf(t, contentType))
	var out []part
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		b, err := io.ReadAll(p)
		if err != nil {
			t.Fatalf("decode part %s: %v", p.FormName(), err)
		}
		out = append(out, part{name: p.FormName(), filename: p.FileName(), contentType: p.Header.Get("Content-Type"), data: b})
	}
}

// TestMultipartBody: the prebuilt body is the encoding PostMultipart has
// always sent (byte for byte but for the random boundary), decodes to the
// fields and the file given, and Post sends it unchanged, twice.
func TestMultipartBody(t *testing.T) {
	body, ct, err := client.MultipartBody(storeFields, storeFile)
	if err != nil {
		t.Fatal(err)
	}
	boundary := boundaryOf(t, ct)
	if want := reference(t, boundary, storeFields, storeFile); !bytes.Equal(body, want) {
		t.Errorf("body differs from mime/multipart's encoding:\n%q\nwant\n%q", body, want)
	}
	want := []part{
		{name: "bucket", data: []byte("hon-game-configs")},
		{name: "cookie", data: []byte("0123456789abcdef0123456789abcdef")},
		{name: "file_modify_time", data: []byte("2026-01-02 03:04:05")},
		{name: "cloud.zip", filename: "cloud.zip", contentType: "application/octet-stream", data: storeFile.Data},
	}
	if got := decodeParts(t, ct, body); !slices.EqualFunc(got, want, func(a, b part) bool {
		return a.name == b.name && a.filename == b.filename && a.contentType == b.contentType && bytes.Equal(a.data, b.data)
	}) {
		t.Errorf("decoded parts %q, want %q", got, want)
	}

	c, got := recorder(t)
	for i := 0; i < 2; i++ {
		if _, err := c.Post(context.Background(), "/master/storage/store", ct, body); err != nil {
			t.Fatal(err)
		}
		s := receive(t, got)
		if s.path != "/master/storage/store" || s.contentType != ct || s.contentLength != int64(len(body)) || !bytes.Equal(s.body, body) {
			t.Errorf("Post #%d sent %s %q length %d %q", i+1, s.path, s.contentType, s.contentLength, s.body)
		}
	}
}

// TestPostMultipartSendsMultipartBody: what PostMultipart sends is what
// MultipartBody builds for the same form (the boundary aside), with the
// same headers, so a caller may send a prebuilt body instead.
func TestPostMultipartSendsMultipartBody(t *testing.T) {
	c, got := recorder(t)
	if _, err := c.PostMultipart(context.Background(), "/master/storage/store", storeFields, storeFile); err != nil {
		t.Fatal(err)
	}
	s := receive(t, got)
	body, ct, err := client.MultipartBody(storeFields, storeFile)
	if err != nil {
		t.Fatal(err)
	}
	sentBoundary, builtBoundary := boundaryOf(t, s.contentType), boundaryOf(t, ct)
	if strings.Replace(s.contentType, sentBoundary, builtBoundary, 1) != ct {
		t.Errorf("Content-Type %q, built %q", s.contentType, ct)
	}
	if same := bytes.ReplaceAll(s.body, []byte(sentBoundary), []byte(builtBoundary)); !bytes.Equal(same, body) {
		t.Errorf("PostMultipart sent\n%q\nMultipartBody builds\n%q", s.body, body)
	}
	if s.contentLength != int64(len(s.body)) {
		t.Errorf("Content-Length %d for %d bytes", s.contentLength, len(s.body))
	}
}
