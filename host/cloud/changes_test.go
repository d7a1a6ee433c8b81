package cloud

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cloudcfg"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

func createAccount(t testing.TB, sys *actors.System, loginName string) *storage.Account {
	t.Helper()
	a, err := sys.CreateAccount(context.Background(), &actors.NewAccount{Login: loginName, Account: storage.Account{Nickname: loginName}})
	if err != nil {
		t.Fatalf("create %s: %v", loginName, err)
	}
	return a
}

func ptr[T any](v T) *T { return &v }

func TestSetEnrollment(t *testing.T) {
	sys := actorstest.New(t)
	ctx := context.Background()
	acct := createAccount(t, sys, "Enrolls")
	other := createAccount(t, sys, "Other")
	for _, tc := range []struct {
		name   string
		change *setEnrollment
		want   storage.CloudFlags
	}{
		{"enroll with autoupload", &setEnrollment{useCloud: true, autoUpload: ptr(true)}, storage.CloudFlags{UseCloud: true, AutoUpload: true}},
		{"autoupload left out keeps its value", &setEnrollment{useCloud: false}, storage.CloudFlags{UseCloud: false, AutoUpload: true}},
		{"both off", &setEnrollment{useCloud: false, autoUpload: ptr(false)}, storage.CloudFlags{}},
		{"enroll only", &setEnrollment{useCloud: true, autoUpload: ptr(false)}, storage.CloudFlags{UseCloud: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := actors.Apply(ctx, sys, acct.ID, tc.change.apply)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("reply %#v, want %#v", got, tc.want)
			}
			stored, err := sys.DB().Account(acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			if stored.Cloud != tc.want {
				t.Errorf("stored flags %+v, want %+v", stored.Cloud, tc.want)
			}
			held, err := sys.Account(ctx, acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			if held.Cloud != tc.want {
				t.Errorf("actor's flags %+v, want %+v", held.Cloud, tc.want)
			}
		})
	}
	if o, _ := sys.DB().Account(other.ID); o.Cloud != (storage.CloudFlags{}) {
		t.Errorf("another account's flags changed: %+v", o.Cloud)
	}
	if _, err := actors.Apply(ctx, sys, 999, (&setEnrollment{useCloud: true}).apply); !errors.Is(err, actors.ErrNoAccount) {
		t.Errorf("enrolling a missing account: %v, want ErrNoAccount", err)
	}
}

func TestStoreObject(t *testing.T) {
	sys := actorstest.New(t)
	ctx := context.Background()
	db := sys.DB()
	a := createAccount(t, sys, "Owner")
	b := createAccount(t, sys, "Victim")
	stored := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

	put := func(t *testing.T, id, claimed storage.AccountID, bucket, modified string, data []byte) {
		t.Helper()
		obj := &Archive{AccountID: claimed, Bucket: bucket, ModifyTime: modified, Stored: stored, Data: data}
		if _, err := sys.Apply(ctx, id, &storeObject{obj: obj}); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(t *testing.T, id storage.AccountID, bucket, modified string, data []byte) {
		t.Helper()
		o, err := archive(db, id, bucket)
		if err != nil {
			t.Fatalf("account %d bucket %q: %v", id, bucket, err)
		}
		if o.AccountID != id || o.Bucket != bucket || o.ModifyTime != modified || !o.Stored.Equal(stored) || !bytes.Equal(o.Data, data) {
			t.Errorf("account %d bucket %q: got %+v", id, bucket, o)
		}
	}

	put(t, a.ID, a.ID, DefaultBucket, "2024-01-01 00:00:00", []byte("v1"))
	expect(t, a.ID, DefaultBucket, "2024-01-01 00:00:00", []byte("v1"))

	// A replacement overwrites in place.
	put(t, a.ID, a.ID, DefaultBucket, "2024-01-02 00:00:00", []byte("v2"))
	expect(t, a.ID, DefaultBucket, "2024-01-02 00:00:00", []byte("v2"))

	// An object naming another account is written under the actor's own.
	put(t, a.ID, b.ID, DefaultBucket, "2024-01-03 00:00:00", []byte("v3"))
	expect(t, a.ID, DefaultBucket, "2024-01-03 00:00:00", []byte("v3"))
	if _, err := archive(db, b.ID, DefaultBucket); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("victim's bucket: %v, want ErrNotFound", err)
	}

	// Buckets are separate.
	put(t, a.ID, a.ID, "other", "2024-01-04 00:00:00", []byte("other"))
	expect(t, a.ID, "other", "2024-01-04 00:00:00", []byte("other"))
	expect(t, a.ID, DefaultBucket, "2024-01-03 00:00:00", []byte("v3"))

	// Storing leaves the account record alone.
	if acct, _ := db.Account(a.ID); acct.Cloud != (storage.CloudFlags{}) || acct.Login != "Owner" {
		t.Errorf("account changed: %+v", acct)
	}
}

func TestNewValidatesConfig(t *testing.T) {
	sys := actorstest.New(t)
	lg := login.New(srp.DefaultGroup(), sys, login.Settings{}, nil, nil)
	good := config.Default().Cloud
	for _, tc := range []struct {
		name   string
		mutate func(*Deps)
		ok     bool
	}{
		{"defaults", func(*Deps) {}, true},
		{"no actor system", func(d *Deps) { d.Sys = nil }, false},
		{"no login service", func(d *Deps) { d.Login = nil }, false},
		{"max_upload 0", func(d *Deps) { d.Config.MaxUpload = 0 }, false},
		{"max_upload negative", func(d *Deps) { d.Config.MaxUpload = -1 }, false},
		{"max_uncompressed 0", func(d *Deps) { d.Config.MaxUncompressed = 0 }, false},
		{"empty bucket pattern", func(d *Deps) { d.Config.BucketPattern = "" }, false},
		{"bucket pattern does not compile", func(d *Deps) { d.Config.BucketPattern = "([a-z" }, false},
		{"unknown strictness", func(d *Deps) { d.Config.CfgStrictness = "paranoid" }, false},
		{"empty strictness is lenient", func(d *Deps) { d.Config.CfgStrictness = "" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Deps{Sys: sys, Login: lg, Config: good}
			tc.mutate(&d)
			a, err := New(d)
			if tc.ok {
				if err != nil || a == nil {
					t.Fatalf("New: %v", err)
				}
				if len(a.Routes()) != 4 {
					t.Errorf("%d routes, want 4", len(a.Routes()))
				}
				return
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("New: %v, want ErrConfig", err)
			}
		})
	}
}

func TestCheckBucket(t *testing.T) {
	sys := actorstest.New(t)
	lg := login.New(srp.DefaultGroup(), sys, login.Settings{}, nil, nil)
	for _, tc := range []struct {
		pattern, bucket string
		ok              bool
	}{
		{`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, DefaultBucket, true},
		{`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, "../x", false},
		{`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, "", false},
		{`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, "a/b", false},
		{`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, string(bytes.Repeat([]byte{'a'}, 65)), false},
		// An unanchored pattern still has to match the whole name.
		{`[a-z-]+`, DefaultBucket, true},
		{`[a-z-]+`, "../x", false},
		{`[a-z-]+`, "x\n", false},
		// The length bound holds whatever the pattern allows.
		{`.*`, string(bytes.Repeat([]byte{'a'}, MaxBucketLength)), true},
		{`.*`, string(bytes.Repeat([]byte{'a'}, MaxBucketLength+1)), false},
		// So does UTF-8 validity ("." matches an invalid byte as U+FFFD).
		{`.*`, "caf\u00e9", true},
		{`.*`, "caf\xe9", false},
	} {
		cfg := config.Default().Cloud
		cfg.BucketPattern = tc.pattern
		a, err := New(Deps{Sys: sys, Login: lg, Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		err = a.checkBucket(tc.bucket)
		if (err == nil) != tc.ok {
			t.Errorf("pattern %q bucket %.20q: %v, want ok=%v", tc.pattern, tc.bucket, err, tc.ok)
		}
		if err != nil && ReasonOf(err) != ReasonBadBucket {
			t.Errorf("reason %v", ReasonOf(err))
		}
	}
}

func TestCheckModifyTime(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"2024-05-06 07:08:09", true},
		{"2024-02-29 23:59:59", true},
		{"2023-02-29 00:00:00", false},
		{"2024-13-01 00:00:00", false},
		{"2024-01-01 24:00:00", false},
		{"2024-1-01 00:00:00", false},
		{"2024-01-01T00:00:00", false},
		{"2024-01-01 00:00:00.000", false},
		{"2024-01-01 00:00:00 ", false},
		{" 2024-01-01 00:00:00", false},
		{"", false},
	} {
		err := checkModifyTime(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("%q: %v, want ok=%v", tc.in, err, tc.ok)
		}
		if err != nil && ReasonOf(err) != ReasonBadModifyTime {
			t.Errorf("%q: reason %v", tc.in, ReasonOf(err))
		}
	}
}

func TestCheckUploadReasons(t *testing.T) {
	sys := actorstest.New(t)
	lg := login.New(srp.DefaultGroup(), sys, login.Settings{}, nil, nil)
	cfg := config.Default().Cloud
	cfg.MaxUpload = 4 * config.KiB
	cfg.MaxUncompressed = 1 * config.KiB
	cfg.CfgStrictness = config.CfgStrict
	a, err := New(Deps{Sys: sys, Login: lg, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	archive := func(cfg string) []byte {
		z, err := cloudcfg.BuildArchive([]byte(cfg))
		if err != nil {
			t.Fatal(err)
		}
		return z
	}
	for _, tc := range []struct {
		name string
		data []byte
		want Reason // ReasonInternal here means accepted
	}{
		{"good", archive("SetSave \"a\" \"b\" \"0\"\n"), ReasonInternal},
		{"too large", make([]byte, 4<<10+1), ReasonTooLarge},
		{"not a zip", []byte("hello"), ReasonNotZip},
		{"unpacks too large", archive(string(bytes.Repeat([]byte("// comment\n"), 200))), ReasonUnpackedTooLarge},
		{"bad line in strict mode", archive("bogus line\n"), ReasonBadConfig},
	} {
		err := a.checkUpload(tc.data)
		if tc.want == ReasonInternal {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if ReasonOf(err) != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want.Message())
		}
	}
}

func TestReplies(t *testing.T) {
	mod := "2024-05-06 07:08:09"
	rec := &infoRecord{AccountID: "7", UseCloud: "1", AutoUpload: "0", FileModifyTime: &mod}
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"store ok", &resultReply{Success: true}, `a:2:{s:7:"success";b:1;s:8:"messages";s:0:"";}`},
		{"retrieve absent", &resultReply{Messages: ReasonNotFound.Message()},
			`a:2:{s:7:"success";b:0;s:8:"messages";s:33:"The specified key does not exist.";}`},
		{"status, nothing stored", &statusReply{Success: true},
			`a:4:{s:7:"success";b:1;s:4:"data";N;s:18:"cloud_storage_info";b:0;s:8:"messages";s:0:"";}`},
		{"status, stored", &statusReply{Success: true, Info: storageInfo{rec}},
			`a:4:{s:7:"success";b:1;s:4:"data";N;s:18:"cloud_storage_info";a:4:{s:10:"account_id";s:1:"7";s:9:"use_cloud";s:1:"1";s:16:"cloud_autoupload";s:1:"0";s:16:"file_modify_time";s:19:"2024-05-06 07:08:09";}s:8:"messages";s:0:"";}`},
		{"enrollment, nothing stored", &enrollmentReply{Success: true, Data: info(7, storage.CloudFlags{UseCloud: true}, nil)},
			`a:2:{s:7:"success";b:1;s:4:"data";a:4:{s:10:"account_id";s:1:"7";s:9:"use_cloud";s:1:"1";s:16:"cloud_autoupload";s:1:"0";s:16:"file_modify_time";N;}}`},
	} {
		got, err := wire.Marshal(tc.v)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestMessagesTable(t *testing.T) {
	seen := map[string]Reason{}
	for r := ReasonInternal; r <= ReasonTooManyChanges; r++ {
		m, ok := messages[r]
		if !ok || m == "" {
			t.Errorf("reason %d has no message", r)
		}
		if prev, dup := seen[m]; dup {
			t.Errorf("reasons %d and %d share the message %q", prev, r, m)
		}
		seen[m] = r
	}
	if len(messages) != int(ReasonTooManyChanges)+1 {
		t.Errorf("%d messages for %d reasons", len(messages), ReasonTooManyChanges+1)
	}
	if Reason(1000).Message() != ReasonInternal.Message() {
		t.Error("an unknown reason does not read as internal")
	}
}

// The quota is checked against sizes the actor remembers from earlier
// stores (the sizes memo): they must stay what storage reports, so a store
// that lands exactly on the byte limit passes and one byte more is refused,
// after replacements that shrank and grew a bucket.
func TestStoreQuotaFromMemo(t *testing.T) {
	sys := actorstest.New(t)
	ctx := context.Background()
	a := createAccount(t, sys, "Memo")
	stored := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	obj := func(bucket string, n int) *Archive {
		return &Archive{Bucket: bucket, ModifyTime: "2024-01-01 00:00:00", Stored: stored, Data: bytes.Repeat([]byte{'z'}, n)}
	}
	size := func(bucket string, n int) int64 {
		o := obj(bucket, n)
		o.AccountID = a.ID
		rec, err := encodeArchive(o)
		if err != nil {
			t.Fatal(err)
		}
		return int64(len(rec))
	}
	// Room for "b" stored at 200 bytes and an upload of 300 to "a", exactly
	// (the check counts the stored sizes of the other buckets and the new
	// upload's archive bytes).
	q := Quota{Buckets: 2, Bytes: size("b", 200) + 300}
	steps := []struct {
		bucket string
		n      int
		ok     bool
	}{
		{"a", 500, true}, {"a", 100, true}, {"b", 400, true}, {"b", 200, true},
		{"a", 301, false}, {"a", 300, true}, {"c", 1, false}, {"b", 201, false}, {"b", 150, true}, {"a", 350, true},
	}
	for i, st := range steps {
		_, err := sys.Apply(ctx, a.ID, &storeObject{obj: obj(st.bucket, st.n), quota: q})
		if st.ok != (err == nil) {
			t.Fatalf("step %d (%s, %d bytes): err %v, want ok %v", i, st.bucket, st.n, err, st.ok)
		}
		sizes, err := Sizes(sys.DB(), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sys.Apply(ctx, a.ID, memoReader{})
		if err != nil {
			t.Fatal(err)
		}
		memo, _ := r.(bucketSizes)
		if len(memo) != len(sizes) {
			t.Fatalf("step %d: memo %v, storage %v", i, memo, sizes)
		}
		for k, v := range sizes {
			if memo[k] != v {
				t.Fatalf("step %d: memo %v, storage %v", i, memo, sizes)
			}
		}
	}
}

// memoReader answers the sizes memo.
type memoReader struct{}

func (memoReader) Apply(tx *actors.Tx) (any, error) { return tx.Memo(sizesMemo), nil }

// The per-address budget counts KiB and refills evenly over Every.
func TestAddressBudgetRefill(t *testing.T) {
	clock := time.Unix(1_700_000_000, 0)
	k := AddressBudget{Bytes: 4 * addressUnit, Every: 4 * time.Hour}.limiter(func() time.Time { return clock })
	for i := range 4 {
		if ok, _ := k.Allow("192.0.2.1"); !ok {
			t.Fatalf("KiB %d refused", i+1)
		}
	}
	if ok, wait := k.Allow("192.0.2.1"); ok || wait != time.Hour {
		t.Fatalf("5th KiB: ok=%v wait=%v; want refused, 1h", ok, wait)
	}
	clock = clock.Add(time.Hour)
	if ok, _ := k.Allow("192.0.2.1"); !ok {
		t.Error("no KiB back after a quarter of Every")
	}
	if (AddressBudget{Bytes: addressUnit - 1, Every: time.Hour}).limiter(nil) != nil {
		t.Error("a budget below one unit is not off")
	}
}
