package server

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"testing"
)

// benchPost sends body to path b.N times on one keep-alive connection of
// largeServer and checks each reply.
func benchPost(b *testing.B, path, body, want string) {
	_, ln := largeServer(b, 128<<20)
	conn, err := ln.Dial()
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	req := "POST " + path + " HTTP/1.1\r\nHost: host\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
	br := bufio.NewReader(conn)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		go io.WriteString(conn, req)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != want {
			b.Fatalf("reply %q, want %q", got, want)
		}
	}
}

// BenchmarkServeSmallForm: a login-sized form, the common request.
func BenchmarkServeSmallForm(b *testing.B) {
	benchPost(b, "/small", fieldsBody(4, 200), "5")
}

// BenchmarkServeLargeForm: a long match's statistics (2 MiB, 5,000 fields)
// on a large-body route.
func BenchmarkServeLargeForm(b *testing.B) {
	benchPost(b, "/large", fieldsBody(5000, 2<<20), "5001")
}
