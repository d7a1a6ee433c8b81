package cloud_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"fmt"
	"hash/crc32"
	"io"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/cloud"
	"github.com/honmaster/masterserver/host/cloudcfg"
	"github.com/honmaster/masterserver/storage"
)

// testServer is a real server (see clitest) with the cloud tests' helpers.
type testServer struct{ *clitest.Server }

func start(t testing.TB, mutate func(*config.Config)) *testServer {
	t.Helper()
	ts := &testServer{clitest.Start(t, mutate)}
	ts.Client.HTTP.Timeout = 20 * time.Second
	return ts
}

// host runs an operator command through the CLI code path.
func (ts *testServer) host(args ...string) (int, string, string) { return ts.Run(args...) }

// account creates an account through the CLI and logs it in over HTTP.
func (ts *testServer) account(t *testing.T, login string) *client.Session {
	t.Helper()
	if code, _, errOut := ts.host("account", "create", "--login", login, "--password", "pw-"+login); code != 0 {
		t.Fatalf("account create %s: exit %d: %s", login, code, errOut)
	}
	return ts.login(t, login)
}

func (ts *testServer) login(t *testing.T, login string) *client.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := ts.Client.Login(ctx, login, "pw-"+login)
	if err != nil {
		t.Fatalf("login %s: %v", login, err)
	}
	return s
}

// post sends a multipart request to path.
func (ts *testServer) post(t testing.TB, path string, fields url.Values, files ...client.FilePart) *client.Reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := ts.Client.PostMultipart(ctx, path, fields, files...)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	if r.Status != 200 {
		t.Fatalf("POST %s: status %d: %q", path, r.Status, r.Body)
	}
	return r
}

func zipPart(data []byte) client.FilePart {
	return client.FilePart{Field: "cloud.zip", Filename: "cloud.zip", Data: data}
}

// storeFields are the text fields of a store request.
func storeFields(cookie, modified string) url.Values {
	return url.Values{"cookie": {cookie}, "bucket": {cloud.DefaultBucket}, "file_modify_time": {modified}}
}

func bucketFields(cookie string) url.Values {
	return url.Values{"cookie": {cookie}, "bucket": {cloud.DefaultBucket}}
}

// result is the exact body of a two-entry success/messages reply.
func result(ok bool, msg string) string {
	b := 0
	if ok {
		b = 1
	}
	return fmt.Sprintf(`a:2:{s:7:"success";b:%d;s:8:"messages";s:%d:"%s";}`, b, len(msg), msg)
}

// storeOK is the recorded store reply (protocol-notes §5).
const storeOK = `a:2:{s:7:"success";b:1;s:8:"messages";s:0:"";}`

// notFound is the recorded retrieve reply when nothing is stored.
const notFound = `a:2:{s:7:"success";b:0;s:8:"messages";s:33:"The specified key does not exist.";}`

// statusNone is the status reply when nothing is stored in the bucket.
const statusNone = `a:4:{s:7:"success";b:1;s:4:"data";N;s:18:"cloud_storage_info";b:0;s:8:"messages";s:0:"";}`

func failure(r cloud.Reason) string { return result(false, r.Message()) }

func checkBody(t testing.TB, what string, r *client.Reply, want string) {
	t.Helper()
	if string(r.Body) != want {
		t.Errorf("%s: body\n got %q\nwant %q", what, r.Body, want)
	}
	// PHP replies are text/plain (issue 22 item 4); the bare
	// invalid_request word stays text/html, as recorded.
	wantType := "text/plain"
	if want == "invalid_request" {
		wantType = "text/html"
	}
	if !strings.HasPrefix(r.ContentType, wantType) {
		t.Errorf("%s: content type %q, want %s", what, r.ContentType, wantType)
	}
}

// statusInfo is the status reply holding an info record.
func statusInfo(id, useCloud, auto, modified string) string {
	return `a:4:{s:7:"success";b:1;s:4:"data";N;s:18:"cloud_storage_info";` + infoRecord(id, useCloud, auto, &modified) +
		`s:8:"messages";s:0:"";}`
}

func infoRecord(id, useCloud, auto string, modified *string) string {
	m := "N;"
	if modified != nil {
		m = fmt.Sprintf(`s:%d:"%s";`, len(*modified), *modified)
	}
	return fmt.Sprintf(`a:4:{s:10:"account_id";s:%d:"%s";s:9:"use_cloud";s:1:"%s";s:16:"cloud_autoupload";s:1:"%s";s:16:"file_modify_time";%s}`,
		len(id), id, useCloud, auto, m)
}

func enrolled(id, useCloud, auto string, modified *string) string {
	return `a:2:{s:7:"success";b:1;s:4:"data";` + infoRecord(id, useCloud, auto, modified) + `}`
}

// retrieveIs checks that retrieve answers exactly data as the download of
// account id.
func (ts *testServer) retrieveIs(t testing.TB, s *client.Session, data []byte) {
	t.Helper()
	r := ts.post(t, cloud.PathRetrieve, bucketFields(s.Cookie))
	if !bytes.Equal(r.Body, data) {
		t.Fatalf("retrieve for %s: got %d bytes %.80q, want the %d stored bytes", s.Login, len(r.Body), r.Body, len(data))
	}
	for h, want := range map[string]string{
		"Content-Type":        "application/octet-stream",
		"Content-Disposition": "attachment; filename=" + s.AccountID + ".zip",
		"Content-Length":      strconv.Itoa(len(data)),
	} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("retrieve %s: %q, want %q", h, got, want)
		}
	}
}

// Settings texts and archives.
const (
	cfgV1 = "SetSave \"cam_edgeScroll\" \"true\" \"0\"\n" +
		"GameReBind Ability0 ActivateTool \"0\" button game \"Q\" \"INVALID\"\n" +
		"BindButton game F1 Cmd \"ToggleShop\" false\n"
	cfgV2 = cfgV1 + "SetSave \"cam_scrollSpeed\" \"2999.9998\" \"0\"\n"
	// cfgJunk has a line strict checking refuses and lenient checking skips.
	cfgJunk = cfgV1 + "UnbindButton game F5\n"
)

// zipOf builds an archive of the given entries with archive/zip, as a client
// would, with its own timestamps so that the bytes differ from BuildArchive.
func zipOf(t testing.TB, files ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f[0], Method: zip.Deflate, Modified: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, f[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sixtyFourEntries are cloud.cfg and 63 other files.
func sixtyFourEntries() [][2]string {
	files := [][2]string{{"cloud.cfg", cfgV1}}
	for i := range 63 {
		files = append(files, [2]string{fmt.Sprintf("f%02d.txt", i), "x"})
	}
	return files
}

// declaredBomb is an honest archive whose cloud.cfg inflates past the
// configured bound: its headers say so.
func declaredBomb(t testing.TB, size int) []byte {
	return zipOf(t, [2]string{cloudcfg.ConfigName, strings.Repeat("A", size)})
}

// lyingBomb is an archive whose headers declare a small cloud.cfg while its
// deflate stream inflates to size bytes.
func lyingBomb(t testing.TB, size int) []byte {
	t.Helper()
	body := bytes.Repeat([]byte{'A'}, size)
	var raw bytes.Buffer
	fw, _ := flate.NewWriter(&raw, flate.BestCompression)
	fw.Write(body)
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: cloudcfg.ConfigName, Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE(body), CompressedSize64: uint64(raw.Len()), UncompressedSize64: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(raw.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCloudEndToEnd(t *testing.T) {
	ts := start(t, nil)
	a := ts.account(t, "Alice")
	b := ts.account(t, "Bob")
	if a.AccountID == b.AccountID {
		t.Fatalf("both accounts have id %s", a.AccountID)
	}
	if v, _ := a.Record.String("use_cloud"); v != "0" {
		t.Errorf("use_cloud before enrollment = %q, want \"0\"", v)
	}
	v1 := zipOf(t, [2]string{"cloud.cfg", cfgV1})
	v2 := zipOf(t, [2]string{"cloud.cfg", cfgV2})
	const t1, t2 = "2024-05-06 07:08:09", "2024-05-07 10:00:00"

	t.Run("status and retrieve before any store", func(t *testing.T) {
		checkBody(t, "status", ts.post(t, cloud.PathStatus, bucketFields(a.Cookie)), statusNone)
		checkBody(t, "retrieve", ts.post(t, cloud.PathRetrieve, bucketFields(a.Cookie)), notFound)
	})

	t.Run("enroll", func(t *testing.T) {
		r := ts.post(t, cloud.PathEnrollment, url.Values{"cookie": {a.Cookie}, "enroll": {"1"}, "cloud_autoupload": {"1"}})
		checkBody(t, "enroll", r, enrolled(a.AccountID, "1", "1", nil))
		s := ts.login(t, "Alice")
		if v, _ := s.Record.String("use_cloud"); v != "1" {
			t.Errorf("use_cloud after enrollment = %q, want \"1\"", v)
		}
		if v, ok := s.Record.Bool("account_cloud_storage_info"); !ok || !v {
			t.Errorf("account_cloud_storage_info after enrollment = %v (%v), want true", v, ok)
		}
		// cloud_autoupload left out keeps its value.
		r = ts.post(t, cloud.PathEnrollment, url.Values{"cookie": {a.Cookie}, "enroll": {"1"}})
		checkBody(t, "enroll without cloud_autoupload", r, enrolled(a.AccountID, "1", "1", nil))
	})

	t.Run("store then retrieve", func(t *testing.T) {
		checkBody(t, "store", ts.post(t, cloud.PathStore, storeFields(a.Cookie, t1), zipPart(v1)), storeOK)
		ts.retrieveIs(t, a, v1)
		checkBody(t, "status", ts.post(t, cloud.PathStatus, bucketFields(a.Cookie)), statusInfo(a.AccountID, "1", "1", t1))
		r := ts.post(t, cloud.PathEnrollment, url.Values{"cookie": {a.Cookie}, "enroll": {"1"}, "cloud_autoupload": {"0"}})
		m := t1
		checkBody(t, "enroll after store", r, enrolled(a.AccountID, "1", "0", &m))
	})

	t.Run("overwrite with a newer file", func(t *testing.T) {
		checkBody(t, "store", ts.post(t, cloud.PathStore, storeFields(a.Cookie, t2), zipPart(v2)), storeOK)
		ts.retrieveIs(t, a, v2)
		checkBody(t, "status", ts.post(t, cloud.PathStatus, bucketFields(a.Cookie)), statusInfo(a.AccountID, "1", "0", t2))
	})

	t.Run("other buckets are separate", func(t *testing.T) {
		f := url.Values{"cookie": {a.Cookie}, "bucket": {"other.bucket-1"}}
		checkBody(t, "status", ts.post(t, cloud.PathStatus, f), statusNone)
		checkBody(t, "retrieve", ts.post(t, cloud.PathRetrieve, f), notFound)
	})

	maxUpload := int(ts.Config.Cloud.MaxUpload)
	bound := int(ts.Config.Cloud.MaxUncompressed)
	long := strings.Repeat("b", 200)
	without := func(v url.Values, key string) url.Values { v.Del(key); return v }
	with := func(v url.Values, key, val string) url.Values { v.Set(key, val); return v }
	for _, tc := range []struct {
		name   string
		fields url.Values
		files  []client.FilePart
		want   cloud.Reason
	}{
		{"file over max_upload", storeFields(a.Cookie, t1), []client.FilePart{zipPart(append(zipOf(t, [2]string{"cloud.cfg", cfgV1}), make([]byte, maxUpload)...))}, cloud.ReasonTooLarge},
		{"file of max_upload+1 bytes", storeFields(a.Cookie, t1), []client.FilePart{zipPart(make([]byte, maxUpload+1))}, cloud.ReasonTooLarge},
		{"body over server.body_limit", storeFields(a.Cookie, t1), []client.FilePart{zipPart(make([]byte, int(ts.Config.Server.BodyLimit)+1))}, cloud.ReasonTooLarge},
		{"not a zip", storeFields(a.Cookie, t1), []client.FilePart{zipPart([]byte("SetSave \"a\" \"b\" \"0\"\n"))}, cloud.ReasonNotZip},
		{"empty file", storeFields(a.Cookie, t1), []client.FilePart{zipPart(nil)}, cloud.ReasonNotZip},
		{"zip without cloud.cfg", storeFields(a.Cookie, t1), []client.FilePart{zipPart(zipOf(t, [2]string{"settings.cfg", cfgV1}))}, cloud.ReasonNoConfig},
		{"cloud.cfg in a folder", storeFields(a.Cookie, t1), []client.FilePart{zipPart(zipOf(t, [2]string{"x/cloud.cfg", cfgV1}))}, cloud.ReasonNoConfig},
		{"declared-size bomb", storeFields(a.Cookie, t1), []client.FilePart{zipPart(declaredBomb(t, bound+1))}, cloud.ReasonUnpackedTooLarge},
		{"actual-size bomb", storeFields(a.Cookie, t1), []client.FilePart{zipPart(lyingBomb(t, 4*bound))}, cloud.ReasonUnpackedTooLarge},
		{"truncated zip", storeFields(a.Cookie, t1), []client.FilePart{zipPart(v1[:len(v1)-10])}, cloud.ReasonBadArchive},
		// The archive is cloud.cfg alone (spec: one file); each of these
		// was stored byte for byte before.
		{"evil.exe beside cloud.cfg", storeFields(a.Cookie, t1), []client.FilePart{zipPart(zipOf(t, [2]string{"cloud.cfg", cfgV1}, [2]string{"evil.exe", "MZ\x90\x00"}))}, cloud.ReasonExtraContent},
		{"../../etc/passwd beside cloud.cfg", storeFields(a.Cookie, t1), []client.FilePart{zipPart(zipOf(t, [2]string{"../../etc/passwd", "root:x:0:0::/root:/bin/sh\n"}, [2]string{"cloud.cfg", cfgV1}))}, cloud.ReasonExtraContent},
		{"64 entries", storeFields(a.Cookie, t1), []client.FilePart{zipPart(zipOf(t, sixtyFourEntries()...))}, cloud.ReasonExtraContent},
		{"bytes before the archive", storeFields(a.Cookie, t1), []client.FilePart{zipPart(append([]byte("MZ\x90\x00 stub "), v1...))}, cloud.ReasonExtraContent},
		{"bytes after the archive", storeFields(a.Cookie, t1), []client.FilePart{zipPart(append(bytes.Clone(v1), "<?php system($_GET['c']); ?>"...))}, cloud.ReasonExtraContent},
		{"bucket ../x", with(storeFields(a.Cookie, t1), "bucket", "../x"), []client.FilePart{zipPart(v1)}, cloud.ReasonBadBucket},
		{"bucket of 200 characters", with(storeFields(a.Cookie, t1), "bucket", long), []client.FilePart{zipPart(v1)}, cloud.ReasonBadBucket},
		{"bucket with a newline", with(storeFields(a.Cookie, t1), "bucket", "hon-game-configs\n"), []client.FilePart{zipPart(v1)}, cloud.ReasonBadBucket},
		{"empty bucket", with(storeFields(a.Cookie, t1), "bucket", ""), []client.FilePart{zipPart(v1)}, cloud.ReasonBadBucket},
		{"missing bucket", without(storeFields(a.Cookie, t1), "bucket"), []client.FilePart{zipPart(v1)}, cloud.ReasonBadBucket},
		{"missing cookie", without(storeFields(a.Cookie, t1), "cookie"), []client.FilePart{zipPart(v1)}, cloud.ReasonNoCookie},
		{"unknown cookie", storeFields(strings.Repeat("0", 32), t1), []client.FilePart{zipPart(v1)}, cloud.ReasonBadCookie},
		{"malformed cookie", storeFields("../"+a.Cookie, t1), []client.FilePart{zipPart(v1)}, cloud.ReasonBadCookie},
		{"missing file_modify_time", without(storeFields(a.Cookie, t1), "file_modify_time"), []client.FilePart{zipPart(v1)}, cloud.ReasonBadModifyTime},
		{"file_modify_time not a date", storeFields(a.Cookie, "2024-02-30 10:00:00"), []client.FilePart{zipPart(v1)}, cloud.ReasonBadModifyTime},
		{"file_modify_time in another shape", storeFields(a.Cookie, "2024-05-06T07:08:09Z"), []client.FilePart{zipPart(v1)}, cloud.ReasonBadModifyTime},
		{"no file part", storeFields(a.Cookie, t1), nil, cloud.ReasonNoFile},
		{"file part under another name", storeFields(a.Cookie, t1), []client.FilePart{{Field: "settings.zip", Filename: "cloud.zip", Data: v1}}, cloud.ReasonNoFile},
		{"archive sent as a text field", with(storeFields(a.Cookie, t1), "cloud.zip", string(v1)), nil, cloud.ReasonNoFile},
	} {
		t.Run("store refused: "+tc.name, func(t *testing.T) {
			checkBody(t, "store", ts.post(t, cloud.PathStore, tc.fields, tc.files...), failure(tc.want))
			// Nothing stored, nothing overwritten.
			ts.retrieveIs(t, a, v2)
			checkBody(t, "status", ts.post(t, cloud.PathStatus, bucketFields(a.Cookie)), statusInfo(a.AccountID, "1", "0", t2))
			if tc.want == cloud.ReasonBadBucket && tc.fields.Get("bucket") != "" {
				sizes, err := cloud.Sizes(ts.Runtime.App.DB, mustID(t, a))
				if _, stored := sizes[tc.fields.Get("bucket")]; err != nil || stored {
					t.Errorf("bucket %q was stored (%v)", tc.fields.Get("bucket"), err)
				}
			}
		})
	}

	t.Run("store refused: not multipart", func(t *testing.T) {
		r, err := ts.Client.PostForm(context.Background(), cloud.PathStore, storeFields(a.Cookie, t1))
		if err != nil {
			t.Fatal(err)
		}
		checkBody(t, "store", r, failure(cloud.ReasonNotMultipart))
		ts.retrieveIs(t, a, v2)
	})

	t.Run("status invalid requests", func(t *testing.T) {
		for _, f := range []url.Values{
			{"bucket": {cloud.DefaultBucket}},
			{"cookie": {""}, "bucket": {cloud.DefaultBucket}},
			{"cookie": {strings.Repeat("f", 32)}, "bucket": {cloud.DefaultBucket}},
			{"cookie": {a.Cookie}},
			{"cookie": {a.Cookie}, "bucket": {"../x"}},
			{"cookie": {a.Cookie}, "bucket": {long}},
		} {
			checkBody(t, fmt.Sprint(f), ts.post(t, cloud.PathStatus, f), "invalid_request")
		}
		r, err := ts.Client.PostForm(context.Background(), cloud.PathStatus, bucketFields(a.Cookie))
		if err != nil {
			t.Fatal(err)
		}
		checkBody(t, "url-encoded status", r, "invalid_request")
	})

	t.Run("retrieve and enrollment refused", func(t *testing.T) {
		for _, tc := range []struct {
			path   string
			fields url.Values
			want   cloud.Reason
		}{
			{cloud.PathRetrieve, url.Values{"bucket": {cloud.DefaultBucket}}, cloud.ReasonNoCookie},
			{cloud.PathRetrieve, bucketFields(strings.Repeat("a", 32)), cloud.ReasonBadCookie},
			{cloud.PathRetrieve, url.Values{"cookie": {a.Cookie}, "bucket": {"../x"}}, cloud.ReasonBadBucket},
			{cloud.PathRetrieve, url.Values{"cookie": {a.Cookie}}, cloud.ReasonBadBucket},
			{cloud.PathEnrollment, url.Values{"enroll": {"0"}}, cloud.ReasonNoCookie},
			{cloud.PathEnrollment, url.Values{"cookie": {strings.Repeat("a", 32)}, "enroll": {"0"}}, cloud.ReasonBadCookie},
			{cloud.PathEnrollment, url.Values{"cookie": {a.Cookie}}, cloud.ReasonBadEnroll},
			{cloud.PathEnrollment, url.Values{"cookie": {a.Cookie}, "enroll": {"2"}}, cloud.ReasonBadEnroll},
			{cloud.PathEnrollment, url.Values{"cookie": {a.Cookie}, "enroll": {"0"}, "cloud_autoupload": {"yes"}}, cloud.ReasonBadEnroll},
		} {
			checkBody(t, tc.path+" "+fmt.Sprint(tc.fields), ts.post(t, tc.path, tc.fields), failure(tc.want))
		}
		// The refused enrollments changed nothing.
		checkBody(t, "status", ts.post(t, cloud.PathStatus, bucketFields(a.Cookie)), statusInfo(a.AccountID, "1", "0", t2))
	})

	t.Run("isolation", func(t *testing.T) {
		// Bob sends his own cookie with every field that could name Alice.
		q := "?account_id=" + a.AccountID + "&login=Alice&cookie=" + a.Cookie
		spoof := func(v url.Values) url.Values {
			v.Set("account_id", a.AccountID)
			v.Set("super_id", a.AccountID)
			v.Set("login", "Alice")
			v.Set("account", a.AccountID)
			return v
		}
		checkBody(t, "status", ts.post(t, cloud.PathStatus+q, spoof(bucketFields(b.Cookie))), statusNone)
		checkBody(t, "retrieve", ts.post(t, cloud.PathRetrieve+q, spoof(bucketFields(b.Cookie))), notFound)
		r := ts.post(t, cloud.PathEnrollment+q, spoof(url.Values{"cookie": {b.Cookie}, "enroll": {"0"}, "cloud_autoupload": {"1"}}))
		checkBody(t, "enroll", r, enrolled(b.AccountID, "0", "1", nil))

		bobs := zipOf(t, [2]string{"cloud.cfg", "SetSave \"bob\" \"1\" \"0\"\n"})
		checkBody(t, "store", ts.post(t, cloud.PathStore+q, spoof(storeFields(b.Cookie, t1)), zipPart(bobs)), storeOK)
		ts.retrieveIs(t, b, bobs)
		ts.retrieveIs(t, a, v2)
		checkBody(t, "Alice's status", ts.post(t, cloud.PathStatus, bucketFields(a.Cookie)), statusInfo(a.AccountID, "1", "0", t2))
		checkBody(t, "Bob's status", ts.post(t, cloud.PathStatus, bucketFields(b.Cookie)), statusInfo(b.AccountID, "0", "1", t1))
		if v, _ := ts.login(t, "Alice").Record.String("use_cloud"); v != "1" {
			t.Errorf("Alice's use_cloud = %q after Bob's enrollment, want \"1\"", v)
		}
	})

	t.Run("host cloud show", func(t *testing.T) {
		code, out, errOut := ts.host("cloud", "show", "--login", "Alice")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []string{"Alice (id " + a.AccountID + ")", cloud.DefaultBucket, t2,
			"Settings (2)", "cam_scrollSpeed", "Rebinds (1)", "ActivateTool", "Binds (1)", "ToggleShop"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		for _, args := range [][]string{
			{"cloud", "show", "--login", "Nobody"},
			{"cloud", "show", "--login", "Alice", "--bucket", "other.bucket-1"},
		} {
			if code, out, _ := ts.host(args...); code == 0 {
				t.Errorf("%v: exit 0, output %q", args, out)
			}
		}
	})
}

func mustID(t testing.TB, s *client.Session) storage.AccountID {
	t.Helper()
	n, err := strconv.ParseUint(s.AccountID, 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	return storage.AccountID(n)
}

// TestCloudStrictness checks cloud.cfg_strictness end to end: strict refuses
// an unknown line and keeps what was stored; lenient and off accept it.
func TestCloudStrictness(t *testing.T) {
	good := zipOf(t, [2]string{"cloud.cfg", cfgV1})
	junk := zipOf(t, [2]string{"cloud.cfg", cfgJunk})
	binary := zipOf(t, [2]string{"cloud.cfg", "\xff\xfe not text"})
	for _, tc := range []struct {
		strictness config.CfgStrictness
		accepted   bool
	}{
		{config.CfgStrict, false},
		{config.CfgLenient, true},
		{config.CfgOff, true},
	} {
		t.Run(string(tc.strictness), func(t *testing.T) {
			ts := start(t, func(c *config.Config) { c.Cloud.CfgStrictness = tc.strictness })
			a := ts.account(t, "Carol")
			checkBody(t, "store good", ts.post(t, cloud.PathStore, storeFields(a.Cookie, "2024-01-01 00:00:00"), zipPart(good)), storeOK)
			for _, upload := range [][]byte{junk, binary} {
				r := ts.post(t, cloud.PathStore, storeFields(a.Cookie, "2024-01-02 00:00:00"), zipPart(upload))
				if tc.accepted {
					checkBody(t, "store", r, storeOK)
					ts.retrieveIs(t, a, upload)
					continue
				}
				checkBody(t, "store", r, failure(cloud.ReasonBadConfig))
				ts.retrieveIs(t, a, good)
			}
			// Archives are checked in every mode.
			checkBody(t, "store without cloud.cfg", ts.post(t, cloud.PathStore, storeFields(a.Cookie, "2024-01-03 00:00:00"),
				zipPart(zipOf(t, [2]string{"x.cfg", cfgV1}))), failure(cloud.ReasonNoConfig))
		})
	}
}

// TestCloudMaxUpload checks that a configured max_upload is what decides.
func TestCloudMaxUpload(t *testing.T) {
	ts := start(t, func(c *config.Config) { c.Cloud.MaxUpload = 2 * config.KiB })
	a := ts.account(t, "Dave")
	small := zipOf(t, [2]string{"cloud.cfg", cfgV1})
	big := zipOf(t, [2]string{"cloud.cfg", noisyCfg(4 << 10)})
	if len(small) > 2<<10 || len(big) <= 2<<10 {
		t.Fatalf("fixture sizes %d and %d", len(small), len(big))
	}
	checkBody(t, "small", ts.post(t, cloud.PathStore, storeFields(a.Cookie, "2024-01-01 00:00:00"), zipPart(small)), storeOK)
	checkBody(t, "big", ts.post(t, cloud.PathStore, storeFields(a.Cookie, "2024-01-01 00:00:00"), zipPart(big)), failure(cloud.ReasonTooLarge))
	ts.retrieveIs(t, a, small)
}

// noisyCfg is a settings text that deflates to about n bytes: cfgV1 then
// SetSave lines of pseudo-random values (base64), which deflate to about
// 60% of their length.
func noisyCfg(n int) string {
	var b strings.Builder
	b.WriteString(cfgV1)
	raw := make([]byte, 48)
	x := uint32(2463534242)
	for i := 0; b.Len() < n*5/3; i++ {
		for j := range raw {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			raw[j] = byte(x)
		}
		fmt.Fprintf(&b, "SetSave \"noise%d\" \"%s\" \"0\"\n", i, base64.StdEncoding.EncodeToString(raw))
	}
	return b.String()
}
