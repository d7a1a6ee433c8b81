package loadtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/cloudcfg"
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
	if got := r.FormValue("bucket"); got != cloudBucket {
		f.t.Errorf("%s bucket %q", r.URL.Path, got)
	}
	switch r.URL.Path {
	case pathStore:
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
	case pathRetrieve:
		w.Write(f.kept)
	default:
		http.NotFound(w, r)
	}
}

// newFakeCloud starts f on loopback and returns the tester's env for it and
// an account logged in with testCookie.
func newFakeCloud(t *testing.T, f *fakeCloud) (*Env, *Account) {
	t.Helper()
	f.t, f.cookie = t, testCookie
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	u, _ := url.Parse(ts.URL)
	c, _ := newClient([]*url.URL{u}, 1)
	c.HTTP.Timeout = 10 * time.Second
	t.Cleanup(c.HTTP.CloseIdleConnections)
	a := &Account{login: "ltabc0", password: "load-abc", id: "1",
		sess: &client.Session{Login: "ltabc0", AccountID: "1", Cookie: testCookie}}
	return &Env{c: c, run: "abc", logins: []string{a.login}}, a
}

// storeOnce runs one store against f and returns the archive f received.
func storeOnce(t *testing.T, e *Env, a *Account, f *fakeCloud) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f.mu.Lock()
	n := len(f.sent)
	f.mu.Unlock()
	err := store(ctx, e, a)
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
			a.sess = &client.Session{Login: a.login, AccountID: a.id, Cookie: testCookie2}
			f.mu.Lock()
			f.cookie = testCookie2
			f.mu.Unlock()
		}
		before, stores := a.lastStored(), a.stores
		sent, err := storeOnce(t, e, a, f)
		if bytes.Equal(sent, before) {
			t.Errorf("store %d sent the archive stored last", i)
		}
		distinct[string(sent)] = true
		cfg, cerr := cloudcfg.CheckArchive(sent, cloudcfg.DefaultLimits)
		if cerr != nil || !strings.Contains(string(cfg), `"`+a.login+"-") {
			t.Errorf("store %d archive: %v %q", i, cerr, cfg)
		}
		if i == 4 {
			if kindOf(err) != "refused:store" || !bytes.Equal(a.lastStored(), before) || a.stores != stores || a.uncertain {
				t.Errorf("refused store %d: err %v, stored changed %t, stores %d, uncertain %t", i, err, !bytes.Equal(a.lastStored(), before), a.stores, a.uncertain)
			}
			continue
		}
		if err != nil || !bytes.Equal(a.lastStored(), sent) || a.stores != stores+1 {
			t.Errorf("store %d: err %v, stored is the archive sent %t, stores %d", i, err, bytes.Equal(a.lastStored(), sent), a.stores)
		}
	}
	if len(distinct) != 2 {
		t.Errorf("%d distinct archives sent, want 2", len(distinct))
	}
	// The body last sent is the one built for the new cookie, unchanged
	// since: the same bytes as the account's cached request.
	v := (a.stores + 1) % 2 // the variant acknowledged last
	f.mu.Lock()
	if f.reqBody == nil || !bytes.Equal(f.reqBody, a.cloud.body[v]) || a.cloud.cookie != testCookie2 {
		t.Errorf("last request body is not the cached one (cookie %q)", a.cloud.cookie)
	}
	f.mu.Unlock()
	c := consistency(context.Background(), e, nil, []*Account{a})
	if !c.OK() || c.CloudChecked != 1 || c.CloudOK != 1 || c.Uncertain != 0 {
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
	r := a.cloud
	built := [2]*byte{&r.body[0][0], &r.body[1][0]}
	archives := [2]*byte{&r.archive[0][0], &r.archive[1][0]}
	for i := 0; i < 4; i++ {
		if _, err := storeOnce(t, e, a, f); err != nil {
			t.Fatal(err)
		}
	}
	if a.cloud != r || &r.body[0][0] != built[0] || &r.body[1][0] != built[1] || &r.archive[0][0] != archives[0] || &r.archive[1][0] != archives[1] {
		t.Error("stores built new archives or bodies with the session unchanged")
	}
	if &a.lastStored()[0] != archives[0] && &a.lastStored()[0] != archives[1] {
		t.Error("a.lastStored() is not one of the account's two archives")
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
	c := consistency(context.Background(), e, nil, []*Account{a})
	if c.OK() || c.CloudChecked != 1 || c.CloudOK != 0 || len(c.Mismatches) != 1 || !strings.Contains(c.Mismatches[0], "cloud") {
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
	if _, err := storeOnce(t, e, a, f); err == nil || !noReply(err) {
		t.Fatalf("store with its reply lost: %v", err)
	}
	if a.uncertain || !a.cloudUnknown || !bytes.Equal(a.lastStored(), first) || a.stores != 1 {
		t.Errorf("uncertain %t, cloud unknown %t, stored changed %t, stores %d", a.uncertain, a.cloudUnknown, !bytes.Equal(a.lastStored(), first), a.stores)
	}
	c := consistency(context.Background(), e, nil, []*Account{a})
	if !c.OK() || c.CloudChecked != 1 || c.CloudOK != 1 || c.Uncertain != 0 {
		t.Errorf("consistency: %s", c.Summary())
	}
}

// A wrong server proof got a reply: it is its own kind, not a transport
// failure (which would leave the account out of the consistency check).
func TestKindOfServerProof(t *testing.T) {
	err := fmt.Errorf("login lt1: %w", client.ErrServerProof)
	if k := kindOf(err); k != "server_proof" || noReply(err) {
		t.Errorf("kindOf = %q, noReply = %t; want server_proof, false", k, noReply(err))
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
	dead := &url.URL{Scheme: "http", Host: dl.Addr().String()}
	dl.Close() // nothing listens there any more: connection refused
	lu, _ := url.Parse(e.c.Base)
	e.c, _ = newClient([]*url.URL{dead, lu}, 1)
	t.Cleanup(e.c.HTTP.CloseIdleConnections)
	for i := range 20 {
		if c := consistency(context.Background(), e, nil, []*Account{a}); !c.OK() || c.CloudOK != 1 {
			t.Fatalf("check %d: %s %q", i, c.Summary(), c.Mismatches)
		}
	}
}
