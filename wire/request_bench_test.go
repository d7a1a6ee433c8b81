package wire

import (
	"strings"
	"testing"
)

// cloudStoreBoundary is as long as the boundaries of Go's multipart writer,
// which the load tester and the end-to-end tests send.
const cloudStoreBoundary = "3f6c1d0be5a9472c8e21d4b07a6f95c3e0b18d2a7c4f6e91b3d5a8c07e2f"

// cloudStoreBody is a body shaped like a cloud store: three text fields and
// a zipped settings file of ~250 bytes, in the order the client sends them.
func cloudStoreBody() (contentType string, body []byte) {
	zip := make([]byte, 250)
	copy(zip, "PK\x03\x04\x14\x00\x08\x00\x08\x00")
	for i := 10; i < len(zip); i++ {
		zip[i] = byte(i*7 + i>>3)
	}
	var b strings.Builder
	field := func(name, value string) {
		b.WriteString("--" + cloudStoreBoundary + "\r\n")
		b.WriteString(`Content-Disposition: form-data; name="` + name + "\"\r\n\r\n")
		b.WriteString(value + "\r\n")
	}
	field("cookie", "0123456789abcdef0123456789abcdef")
	field("bucket", "hon-game-configs")
	field("file_modify_time", "2021-05-09 15:18:47")
	b.WriteString("--" + cloudStoreBoundary + "\r\n")
	b.WriteString(`Content-Disposition: form-data; name="cloud.zip"; filename="cloud.zip"` + "\r\n")
	b.WriteString("Content-Type: application/octet-stream\r\n\r\n")
	b.Write(zip)
	b.WriteString("\r\n--" + cloudStoreBoundary + "--\r\n")
	return "multipart/form-data; boundary=" + cloudStoreBoundary, []byte(b.String())
}

// BenchmarkReadRequestMultipart reads a cloud store as the server does,
// from the fasthttp request to the owned Request.
func BenchmarkReadRequestMultipart(b *testing.B) {
	ct, body := cloudStoreBody()
	ctx := newCtx("POST", "/master/storage/store", ct, body)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := ReadRequest(ctx, Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Files) != 1 || len(r.Form) != 3 {
			b.Fatalf("read %d files, %d fields", len(r.Files), len(r.Form))
		}
	}
}
