package cloud

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/cloudcfg"
	"github.com/honmaster/masterserver/host/loadtest"
)

// The area's load-test operations ("honmaster loadtest --mix cloud=1,...")
// and its end-of-run check: every account that stored settings has its
// archive retrieved again, which must be the one stored last (the
// report's "cloud files" check, loadCheckName).
func init() {
	loadtest.RegisterArea(loadtest.Area{Name: AreaName, Check: loadCheck, Operations: []loadtest.Operation{
		{Name: "cloud", Requests: 3, Do: loadCloud, DefaultWeight: 1,
			Doc: "store as the store operation does, status, retrieve: the bytes must be the ones stored"},
		{Name: "store", Requests: 1, Do: loadStore,
			Doc: "store alone: the other of the account's two settings archives than it stored last (one durable mutation; the check at the end retrieves it)"},
	}})
}

// loadAccount is what the load tester keeps of an account's settings:
// its two archives and their store requests, built on its first store
// (loadRequests); how many stores were acknowledged (the next store sends
// variant stores%2, always the other one than the archive last
// acknowledged: lastStored). unknown: a store of that variant has an
// unknown outcome (its reply was lost, or said so), so the archive on the
// server may be either.
type loadAccount struct {
	req     *loadRequests
	stores  int
	unknown bool
}

func loadAccountOf(a *loadtest.Account) *loadAccount {
	return loadtest.AccountState(a, AreaName, func() *loadAccount { return &loadAccount{} })
}

// loadRequests are an account's two settings archives and the store
// requests that carry them, built once, on the account's first store (the
// bodies again only when its session cookie changed, after a login
// operation): a store then costs the tester a request, and measures the
// server's store, not the tester's zip and multipart encoding. A store sends
// the other archive than the one last acknowledged, so each one changes what
// the server keeps, and a store it acknowledged but did not keep leaves the
// other archive for the check at the end to find.
type loadRequests struct {
	archive     [2][]byte
	cookie      string // the session cookie the bodies carry
	body        [2][]byte
	contentType [2]string
}

// loadArchive builds the account's settings archive variant (0 or 1): its
// cfg names the login and the variant, so the two differ from each other and
// from every other account's.
func loadArchive(login string, variant int) ([]byte, error) {
	cfg := fmt.Sprintf("SetSave \"cl_Rap2Enable\" \"false\" \"1\"\nSetSave \"ui_loadtest\" \"%s-%d\" \"1\"\n", login, variant)
	return cloudcfg.BuildArchive([]byte(cfg))
}

// storeRequest returns the body and Content-Type of the account's store of
// archive variant v, building the archives on the first call and the bodies
// whenever the session's cookie is not the one they carry.
func (s *loadAccount) storeRequest(a *loadtest.Account, v int) (body []byte, contentType string, err error) {
	if s.req == nil {
		var r loadRequests
		for i := range r.archive {
			if r.archive[i], err = loadArchive(a.Login(), i); err != nil {
				return nil, "", err
			}
		}
		s.req = &r
	}
	r := s.req
	if r.cookie != a.Cookie() {
		var bodies [2][]byte
		var types [2]string
		fields := url.Values{"cookie": {a.Cookie()}, "bucket": {DefaultBucket}, "file_modify_time": {"2026-01-02 03:04:05"}}
		for i, zip := range r.archive {
			if bodies[i], types[i], err = client.MultipartBody(fields, client.FilePart{Field: "cloud.zip", Filename: "cloud.zip", Data: zip}); err != nil {
				return nil, "", err
			}
		}
		r.body, r.contentType, r.cookie = bodies, types, a.Cookie()
	}
	return r.body[v], r.contentType[v], nil
}

// loadStoreOnce stores the other of the account's two archives than the
// one the server last acknowledged (loadRequests).
func loadStoreOnce(ctx context.Context, e *loadtest.Env, a *loadtest.Account) error {
	s := loadAccountOf(a)
	v := s.stores % 2
	body, contentType, err := s.storeRequest(a, v)
	if err != nil {
		return loadtest.Fail("internal", "%v", err)
	}
	r, err := e.Client().Post(ctx, PathStore, contentType, body)
	if err != nil {
		s.unknown = s.unknown || loadtest.NoReply(err)
		return err
	}
	arr, err := loadtest.Decode(r, 200)
	if err != nil {
		return err
	}
	if ok, _ := arr.Bool("success"); !ok {
		msg, _ := arr.String("messages")
		if strings.Contains(msg, "may or may not") { // the area's outcome unknown
			s.unknown = true
		}
		return loadtest.Fail("refused:store", "%s", msg)
	}
	s.stores++
	s.unknown = false // the variant sent is the one stored now
	return nil
}

// lastStored is the archive the server last acknowledged for the account
// (nil before its first store).
func (s *loadAccount) lastStored() []byte {
	if s.stores == 0 {
		return nil
	}
	return s.req.archive[(s.stores-1)%2]
}

func loadStore(ctx context.Context, e *loadtest.Env, a *loadtest.Account, _ *rand.Rand) error {
	return loadStoreOnce(ctx, e, a)
}

func loadCloud(ctx context.Context, e *loadtest.Env, a *loadtest.Account, _ *rand.Rand) error {
	if err := loadStoreOnce(ctx, e, a); err != nil {
		return err
	}
	r, err := e.Client().PostMultipart(ctx, PathStatus, url.Values{"cookie": {a.Cookie()}, "bucket": {DefaultBucket}})
	if err != nil {
		return err
	}
	arr, err := loadtest.Decode(r, 200)
	if err != nil {
		return err
	}
	if ok, _ := arr.Bool("success"); !ok {
		return loadtest.Fail("refused:status", "%.200s", r.Body)
	}
	if info, ok := arr.Array("cloud_storage_info"); !ok || info == nil {
		return loadtest.Fail("cloud_status", "status shows nothing stored after a store")
	}
	return loadRetrieveCheck(ctx, e.Client(), a)
}

// loadRetrieveCheck retrieves the account's archive and compares it with
// the one stored last.
func loadRetrieveCheck(ctx context.Context, c *client.Client, a *loadtest.Account) error {
	s := loadAccountOf(a)
	r, err := c.PostMultipart(ctx, PathRetrieve, url.Values{"cookie": {a.Cookie()}, "bucket": {DefaultBucket}})
	if err != nil {
		return err
	}
	if r.Status != 200 {
		return loadtest.Fail("http_"+strconv.Itoa(r.Status), "%.200s", r.Body)
	}
	stored := s.lastStored()
	if bytes.Equal(r.Body, stored) || s.unknown && bytes.Equal(r.Body, s.req.archive[s.stores%2]) {
		return nil
	}
	return loadtest.Fail("cloud_mismatch", "retrieved %d bytes, not the %d stored", len(r.Body), len(stored))
}

// loadCheck retrieves every stored archive again at the end of the run
// (a read: one that met no server, a node of the targets that is down, is
// sent again to a target not tried yet).
func loadCheck(ctx context.Context, e *loadtest.Env, c *loadtest.Consistency) {
	files := c.Area(loadCheckName, "cloud files")
	for _, a := range e.Accounts() {
		if loadAccountOf(a).stores == 0 {
			continue
		}
		files.Checked++
		err := e.Read(ctx, func(ctx context.Context) error { return loadRetrieveCheck(ctx, e.Client(), a) })
		if err != nil {
			c.Mismatch("%s cloud: %v", a.Login(), err)
		} else {
			files.OK++
		}
	}
}

// loadCheckName is the end-of-run check's name in the report
// (loadtest.Consistency.Area): its accounts that stored an archive
// (Checked) and those whose archive was the one stored last (OK).
const loadCheckName = "cloud files"
