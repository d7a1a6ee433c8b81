package cloud

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/cloudcfg"
	"github.com/honmaster/masterserver/host/loadtest"
)

// fakeCloud serves the cloud store and retrieve calls of one account on
// loopback. It acknowledges a store unless told to refuse it or to drop its
// reply, and keeps the archive stored (or, stale, only the first one).
type fakeCloud struct {
	t      *testing.T
	stale  bool         // acknowledge every store, keep the first archive only
	refuse map[int]bool // store numbers (from 1) answered success false
	lose   map[int]bool // store numbers kept but whose reply is lost (connection closed)

	mu      sync.Mutex
	stores  int
	cookie  string   // the cookie the account's session has now
	sent    [][]byte // every archive received, in order
	kept    []byte
	reqBody []byte // the last store's whole request body
}

const (
	testCookie  = "0123456789abcdef0123456789abcdef"
	testCookie2 = "fedcba9876543210fedcba9876543210"
)

func (f *fakeCloud) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("read request: %v", err)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		f.t.Errorf("%s: %v", r.URL.Path, err)
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	if got := r.FormValue("cookie"); got != f.cookie {
		f.t.Errorf("%s with cookie %q, the session's is %q", r.URL.Path, got, f.cookie)
	}
	if got := r.FormValue("bucket"); got != DefaultBucket {
		f.t.Errorf("%s bucket %q", r.URL.Path, got)
	}
	switch r.URL.Path {
	case PathStore:
		f.stores++
		f.reqBody = body
		if got := r.FormValue("file_modify_time"); got != "2026-01-02 03:04:05" {
			f.t.Errorf("store file_modify_time %q", got)
		}
		files := r.MultipartForm.File["cloud.zip"]
		if len(files) != 1 || files[0].Filename != "cloud.zip" || files[0].Header.Get("Content-Type") != "application/octet-stream" {
			f.t.Errorf("store without one cloud.zip file: %v", r.MultipartForm.File)
			http.Error(w, "no file", http.StatusBadRequest)
			return
		}
		fh, err := files[0].Open()
		if err != nil {
			f.t.Errorf("store file: %v", err)
			return
		}
		data, _ := io.ReadAll(fh)
		fh.Close()
		f.sent = append(f.sent, data)
		if f.refuse[f.stores] {
			io.WriteString(w, `a:2:{s:7:"success";b:0;s:8:"messages";s:7:"refused";}`)
			return
		}
		if !f.stale || f.kept == nil {
			f.kept = data
		}
		if f.lose[f.stores] {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				f.t.Errorf("hijack: %v", err)
				return
			}
			conn.Close()
			return
		}
		io.WriteString(w, `a:2:{s:7:"success";b:1;s:8:"messages";s:0:"";}`)
	case PathRetrieve:
		w.Write(f.kept)
	default:
		http.NotFound(w, r)
	}
}

// newFakeCloud starts f on loopback and returns the tester's env for it and
// an account logged in with testCookie.
func newFakeCloud(t *testing.T, f *fakeCloud) (*loadtest.Env, *loadtest.Account) {
	t.Helper()
	f.t, f.cookie = t, testCookie
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	e, accts, err := loadtest.NewTestEnv([]string{ts.URL}, testCookie, "ltabc0")
	if err != nil {
		t.Fatal(err)
	}
	e.Client().HTTP.Timeout = 10 * time.Second
	t.Cleanup(e.Client().HTTP.CloseIdleConnections)
	return e, accts[0]
}

// check is the end-of-run check of the area's load test alone.
func check(e *loadtest.Env) loadtest.Consistency {
	var c loadtest.Consistency
	loadCheck(context.Background(), e, &c)
	return c
}

// files is c's cloud files check (checked, ok), -1s when c has none.
func files(c loadtest.Consistency) (checked, ok int) {
	ac := c.Areas[loadCheckName]
	if ac == nil {
		return -1, -1
	}
	return ac.Checked, ac.OK
}

// storeOnce runs one store against f and returns the archive f received.
func storeOnce(t *testing.T, e *loadtest.Env, a *loadtest.Account, f *fakeCloud) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f.mu.Lock()
	n := len(f.sent)
	f.mu.Unlock()
	err := loadStoreOnce(ctx, e, a)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sent) != n+1 {
		t.Fatalf("store sent %d archives, want 1 (err %v)", len(f.sent)-n, err)
	}
	return f.sent[n], err
}

// TestStoreAlternates: every store sends the other of the account's two
// archives than the one last acknowledged (a refused store changes nothing,
// so the next sends the same archive again), a.lastStored() is the one last
// acknowledged, and the check at the end finds it on an honest server.
// The archives and bodies are built once, and the bodies again with a new
// session's cookie.
func TestStoreAlternates(t *testing.T) {
	f := &fakeCloud{refuse: map[int]bool{4: true}}
	e, a := newFakeCloud(t, f)
	distinct := map[string]bool{}
	for i := 1; i <= 8; i++ {
		if i == 6 {
			// A login operation gives the account a new session.
			a.SetCookie(testCookie2)
			f.mu.Lock()
			f.cookie = testCookie2
			f.mu.Unlock()
		}
		s := loadAccountOf(a)
		before, stores := s.lastStored(), s.stores
		sent, err := storeOnce(t, e, a, f)
		if bytes.Equal(sent, before) {
			t.Errorf("store %d sent the archive stored last", i)
		}
		distinct[string(sent)] = true
		cfg, cerr := cloudcfg.CheckArchive(sent, cloudcfg.DefaultLimits)
		if cerr != nil || !strings.Contains(string(cfg), `"`+a.Login()+"-") {
			t.Errorf("store %d archive: %v %q", i, cerr, cfg)
		}
		if i == 4 {
			if loadtest.Kind(err) != "refused:store" || !bytes.Equal(s.lastStored(), before) || s.stores != stores {
				t.Errorf("refused store %d: err %v, stored changed %t, stores %d", i, err, !bytes.Equal(s.lastStored(), before), s.stores)
			}
			continue
		}
		if err != nil || !bytes.Equal(s.lastStored(), sent) || s.stores != stores+1 {
			t.Errorf("store %d: err %v, stored is the archive sent %t, stores %d", i, err, bytes.Equal(s.lastStored(), sent), s.stores)
		}
	}
	if len(distinct) != 2 {
		t.Errorf("%d distinct archives sent, want 2", len(distinct))
	}
	// The body last sent is the one built for the new cookie, unchanged
	// since: the same bytes as the account's cached request.
	s := loadAccountOf(a)
	v := (s.stores + 1) % 2 // the variant acknowledged last
	f.mu.Lock()
	if f.reqBody == nil || !bytes.Equal(f.reqBody, s.req.body[v]) || s.req.cookie != testCookie2 {
		t.Errorf("last request body is not the cached one (cookie %q)", s.req.cookie)
	}
	f.mu.Unlock()
	c := check(e)
	if checked, ok := files(c); !c.OK() || checked != 1 || ok != 1 {
		t.Errorf("consistency: %s %q", c.Summary(), c.Mismatches)
	}
}

// TestStoreBuiltOnce: with the session unchanged, stores reuse the
// account's two archives and request bodies instead of building new ones.
func TestStoreBuiltOnce(t *testing.T) {
	f := &fakeCloud{}
	e, a := newFakeCloud(t, f)
	if _, err := storeOnce(t, e, a, f); err != nil {
		t.Fatal(err)
	}
	s := loadAccountOf(a)
	r := s.req
	built := [2]*byte{&r.body[0][0], &r.body[1][0]}
	archives := [2]*byte{&r.archive[0][0], &r.archive[1][0]}
	for i := 0; i < 4; i++ {
		if _, err := storeOnce(t, e, a, f); err != nil {
			t.Fatal(err)
		}
	}
	if s.req != r || &r.body[0][0] != built[0] || &r.body[1][0] != built[1] || &r.archive[0][0] != archives[0] || &r.archive[1][0] != archives[1] {
		t.Error("stores built new archives or bodies with the session unchanged")
	}
	if &s.lastStored()[0] != archives[0] && &s.lastStored()[0] != archives[1] {
		t.Error("lastStored() is not one of the account's two archives")
	}
}

// TestConsistencyCatchesStaleStore: a server that acknowledges every store
// but keeps the first archive is caught by the check at the end, since the
// next store sent the other archive.
func TestConsistencyCatchesStaleStore(t *testing.T) {
	f := &fakeCloud{stale: true}
	e, a := newFakeCloud(t, f)
	for i := 0; i < 2; i++ {
		if _, err := storeOnce(t, e, a, f); err != nil {
			t.Fatal(err)
		}
	}
	c := check(e)
	if checked, ok := files(c); c.OK() || checked != 1 || ok != 0 || len(c.Mismatches) != 1 || !strings.Contains(c.Mismatches[0], "cloud") ||
		!strings.Contains(c.Summary(), "cloud files 0/1") {
		t.Errorf("a stale store went unnoticed: %s %q", c.Summary(), c.Mismatches)
	}
}

// TestStoreReplyLost: a store whose reply is lost may or may not have been
// kept: a.lastStored() is unchanged, and the check at the end accepts
// either archive rather than leave the account out (it left it out).
func TestStoreReplyLost(t *testing.T) {
	f := &fakeCloud{lose: map[int]bool{2: true}}
	e, a := newFakeCloud(t, f)
	first, err := storeOnce(t, e, a, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storeOnce(t, e, a, f); err == nil || !loadtest.NoReply(err) {
		t.Fatalf("store with its reply lost: %v", err)
	}
	if s := loadAccountOf(a); !s.unknown || !bytes.Equal(s.lastStored(), first) || s.stores != 1 {
		t.Errorf("cloud unknown %t, stored changed %t, stores %d", s.unknown, !bytes.Equal(s.lastStored(), first), s.stores)
	}
	c := check(e)
	if checked, ok := files(c); !c.OK() || checked != 1 || ok != 1 {
		t.Errorf("consistency: %s", c.Summary())
	}
}

// TestConsistencyReadsAgainPastADeadTarget: with a node of the targets
// down (killed during the run), the end-of-run retrieve that met it is sent
// again, to a target at random, rather than count as a cloud mismatch.
func TestConsistencyReadsAgainPastADeadTarget(t *testing.T) {
	f := &fakeCloud{}
	e, a := newFakeCloud(t, f)
	if _, err := storeOnce(t, e, a, f); err != nil {
		t.Fatal(err)
	}
	dl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + dl.Addr().String()
	dl.Close() // nothing listens there any more: connection refused
	e2, accts, err := loadtest.NewTestEnv([]string{dead, e.Client().Base}, testCookie, "ltabc0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e2.Client().HTTP.CloseIdleConnections)
	*loadAccountOf(accts[0]) = *loadAccountOf(a) // the same account, stored once
	for i := range 20 {
		c := check(e2)
		if _, ok := files(c); !c.OK() || ok != 1 {
			t.Fatalf("check %d: %s %q", i, c.Summary(), c.Mismatches)
		}
	}
}
