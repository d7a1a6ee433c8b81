package cloud

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/cloudcfg"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// AreaName is the name the cloud routes are logged under.
const AreaName = "cloud"

// The paths the area serves: the one place they are written down.
const (
	PathEnrollment = "/master/cloud/set-user-enrollment"
	PathStatus     = "/master/storage/status"
	PathStore      = "/master/storage/store"
	PathRetrieve   = "/master/storage/retrieve"
)

// DefaultBucket is the bucket the stock client uses (protocol-notes §5). The
// enrollment reply reports this bucket's file_modify_time, and Show lists it
// when no bucket is named.
const DefaultBucket = "hon-game-configs"

// MaxBucketLength bounds a bucket name in bytes, whatever the configured
// pattern allows. A name must also be valid UTF-8, whatever the pattern
// allows: the stored record's header holds it as text.
const MaxBucketLength = 255

// ModifyTimeLayout is the time.Parse layout of file_modify_time
// (YYYY-MM-DD hh:mm:ss).
const ModifyTimeLayout = "2006-01-02 15:04:05"

const (
	// invalidRequest is the status call's bare failure word (spec, Errors 4).
	invalidRequest = "invalid_request"
	// contentInvalid is its content type: text/html, as PHP sends by default.
	contentInvalid = "text/html; charset=UTF-8"
	mediaMultipart = "multipart/form-data"
)

// ErrConfig marks a configuration New cannot serve with.
var ErrConfig = errors.New("cloud: bad configuration")

// Deps are what the cloud area needs.
type Deps struct {
	Sys    *actors.System
	Login  *login.Service
	Config config.Cloud
	Quota  Quota // per-account limits; zero: none
	// PerAddress is the budget of bytes stored from one client address
	// over all its accounts (limits.cloud_bytes_per_address); zero: none.
	PerAddress AddressBudget
	// Enrollments bounds the enrollment changes of one account and of one
	// client address (limits.toggles_per_account, toggles_per_address):
	// each is a synced commit. Zero: none.
	Enrollments limit.WriteRates
	Log         *slog.Logger
	Now         func() time.Time // nil: time.Now
}

// AddressBudget is a budget of bytes stored from one client address: Bytes
// at once, refilled evenly over Every. Keys is how many addresses the
// limiter remembers (0: limit.DefaultMaxKeys).
type AddressBudget struct {
	Bytes int64
	Every time.Duration
	Keys  int
}

// addressUnit is the unit the per-address budget counts in: an upload
// spends its size in KiB, rounded up.
const addressUnit = 1024

// limiter returns the budget as a limiter counting addressUnits (nil when
// the budget is off).
func (b AddressBudget) limiter(now func() time.Time) *limit.Keyed {
	units := b.Bytes / addressUnit
	if units <= 0 || b.Every <= 0 {
		return nil
	}
	return limit.New(limit.Rate{Burst: int(units), Every: max(b.Every/time.Duration(units), time.Nanosecond)}, b.Keys, now)
}

// Area serves the cloud storage endpoints.
type Area struct {
	d          Deps
	db         *storage.DB
	log        *slog.Logger
	bucket     *regexp.Regexp // the configured pattern, anchored at both ends
	strictness cloudcfg.Strictness
	maxUpload  int64
	limits     cloudcfg.Limits
	now        func() time.Time
	byAddress  *limit.Keyed // bytes stored per client address, in addressUnits; nil: no budget
	enrolls    *limit.Writes
	replies    *area.Replies
}

// New builds the area, validating its configuration: the bucket pattern must
// compile and the size limits must be positive. Log may be nil.
func New(d Deps) (*Area, error) {
	if d.Sys == nil || d.Login == nil {
		return nil, fmt.Errorf("%w: actor system and login service are required", ErrConfig)
	}
	c := d.Config
	if c.MaxUpload <= 0 {
		return nil, fmt.Errorf("%w: max_upload must be > 0, got %d", ErrConfig, c.MaxUpload)
	}
	if c.MaxUncompressed <= 0 {
		return nil, fmt.Errorf("%w: max_uncompressed must be > 0, got %d", ErrConfig, c.MaxUncompressed)
	}
	if c.BucketPattern == "" {
		return nil, fmt.Errorf("%w: bucket_pattern must not be empty", ErrConfig)
	}
	// Anchoring makes the pattern judge the whole name: an operator's
	// unanchored "[a-z-]+" must not let "../x" through on a partial match.
	re, err := regexp.Compile(`^(?:` + c.BucketPattern + `)$`)
	if err != nil {
		return nil, fmt.Errorf("%w: bucket_pattern: %w", ErrConfig, err)
	}
	st, err := cloudcfg.ParseStrictness(string(c.CfgStrictness))
	if err != nil {
		return nil, fmt.Errorf("%w: cfg_strictness: %w", ErrConfig, err)
	}
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	a := &Area{
		d: d, db: d.Sys.DB(), log: log.With("area", AreaName), replies: replies.WithLog(log),
		bucket: re, strictness: st, maxUpload: int64(c.MaxUpload),
		limits:    cloudcfg.Limits{MaxArchive: int64(c.MaxUpload), MaxUncompressed: int64(c.MaxUncompressed)},
		now:       now,
		byAddress: d.PerAddress.limiter(now),
		enrolls:   limit.NewWrites(d.Enrollments, now),
	}
	if err := a.limits.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return a, nil
}

// SetEnrollmentRates changes Deps.Enrollments (a configuration reload):
// what was spent stays spent, capped at the new bursts.
func (a *Area) SetEnrollmentRates(r limit.WriteRates) { a.enrolls.SetRates(r) }

// Routes are the paths the area serves. Their failures are answered from
// the area's table of causes (failure.go): success false and the
// reason's message, except the status call's.
func (a *Area) Routes() []server.Route {
	return []server.Route{
		area.NewRoute(a.replies, area.Route[call[enrollRequest], *enrollmentReply]{Path: PathEnrollment, Decode: decode[enrollRequest], Serve: a.enrollment,
			Fail: resultFail[enrollRequest, *enrollmentReply], Outcome: replyOutcome, Doc: server.Doc{
				Summary: "Turns cloud settings on or off for the session's account.", Form: enrollRequest{}, Multipart: true, ReplyValue: enrollmentReply{},
				Reply: "PHP array; failures use the messages of host/cloud/failure.go.",
			}}),
		area.NewRoute(a.replies, area.Route[call[bucketRequest], *statusReply]{Path: PathStatus, Decode: decode[bucketRequest], Serve: a.status,
			Fail: statusFail, Outcome: replyOutcome, Doc: server.Doc{
				Summary: "Whether settings are stored in a bucket, and their modification time.", Form: bucketRequest{}, Multipart: true, ReplyValue: statusReply{},
				Reply: "PHP array; a request that cannot be read answers the bare word `invalid_request`.",
			}}),
		area.NewRoute(a.replies, area.Route[call[storeRequest], *resultReply]{Path: PathStore, Decode: decode[storeRequest], Serve: a.store,
			Fail: resultFail[storeRequest, *resultReply], Outcome: replyOutcome, Doc: server.Doc{
				Summary: "Stores the client's settings archive (a zip holding cloud.cfg), checked against the [cloud] limits.", Form: storeRequest{}, Multipart: true, ReplyValue: resultReply{},
				Reply: "PHP array; a refused store changes nothing and names the reason (host/cloud/failure.go).",
			}}),
		area.NewRoute(a.replies, area.Route[call[bucketRequest], server.Response]{Path: PathRetrieve, Decode: decode[bucketRequest], Serve: a.retrieve,
			Fail: resultFail[bucketRequest, server.Response], Outcome: replyOutcome, Doc: server.Doc{
				Summary: "Downloads the stored archive, byte for byte.", Form: bucketRequest{}, Multipart: true,
				Reply: "application/octet-stream `<account_id>.zip`; failures are PHP arrays (host/cloud/failure.go).",
			}}),
	}
}

// Requests. Only the fields named here are read; anything else a client
// sends (account_id, login ...) is ignored.
type (
	enrollRequest struct {
		Cookie     string `form:"cookie" doc:"session cookie; the account is always the session's"`
		Enroll     string `form:"enroll" doc:"1 to enroll, 0 to leave"`
		AutoUpload string `form:"cloud_autoupload" doc:"the client's auto-upload flag"`
	}
	bucketRequest struct {
		Cookie string `form:"cookie" doc:"session cookie"`
		Bucket string `form:"bucket" doc:"settings bucket (the stock client: hon-game-configs)"`
	}
	storeRequest struct {
		Cookie     string     `form:"cookie" doc:"session cookie"`
		Bucket     string     `form:"bucket" doc:"settings bucket"`
		ModifyTime string     `form:"file_modify_time" doc:"YYYY-MM-DD hh:mm:ss"`
		Archive    *wire.File `form:"cloud.zip" doc:"file part: the zip holding cloud.cfg"`
	}
)

// call is a cloud request: its form, and what the handlers read of the
// request itself (the multipart check, the client's address).
type call[F any] struct {
	form              F
	contentType, addr string
}

// decode reads a cloud request; a form that does not decode is malformed.
func decode[F any](r *wire.Request) (call[F], error) {
	c := call[F]{contentType: r.ContentType, addr: r.RemoteIP}
	if err := r.Decode(&c.form); err != nil {
		return c, fail(ReasonMalformed, err)
	}
	return c, nil
}

func (a *Area) enrollment(ctx context.Context, c call[enrollRequest]) (*enrollmentReply, error) {
	req := c.form
	sess, err := a.authenticate(c.contentType, req.Cookie)
	if err != nil {
		return nil, err
	}
	useCloud, ok := parseFlag(req.Enroll)
	if !ok {
		return nil, fail(ReasonBadEnroll, fmt.Errorf("enroll %q", req.Enroll))
	}
	acct, addr := uint64(sess.AccountID), c.addr
	var spent atomic.Bool // set in the actor, read here after it answered
	change := &setEnrollment{useCloud: useCloud, spend: func() error {
		if err := a.enrolls.Spend(acct, addr); err != nil {
			return fail(ReasonTooManyChanges, err)
		}
		spent.Store(true)
		return nil
	}}
	if req.AutoUpload != "" {
		auto, ok := parseFlag(req.AutoUpload)
		if !ok {
			return nil, fail(ReasonBadEnroll, fmt.Errorf("cloud_autoupload %q", req.AutoUpload))
		}
		change.autoUpload = &auto
	}
	flags, err := actors.Apply(ctx, a.d.Sys, sess.AccountID, change.apply)
	if err != nil {
		if spent.Load() && !failure.Uncertain(err) {
			a.enrolls.Refund(acct, addr) // refused with nothing written (a full disk)
		}
		return nil, err
	}
	// The enrollment is committed: a failure to read the stored object's
	// time now must not turn into a failure reply. Answer null for it.
	obj, err := a.meta(sess.AccountID, DefaultBucket)
	if err != nil {
		a.log.Warn("enrollment: stored object metadata", "account", sess.AccountID, "err", err)
		obj = nil
	}
	return &enrollmentReply{Success: true, Data: info(sess.AccountID, flags, obj)}, nil
}

func (a *Area) status(_ context.Context, c call[bucketRequest]) (*statusReply, error) {
	req := c.form
	sess, err := a.bucketSession(c.contentType, req.Cookie, req.Bucket)
	if err != nil {
		return nil, err
	}
	acct, err := a.db.Account(sess.AccountID)
	if err != nil {
		return nil, fail(ReasonInternal, err)
	}
	obj, err := a.meta(sess.AccountID, req.Bucket)
	if err != nil {
		return nil, err
	}
	reply := &statusReply{Success: true}
	if obj != nil {
		reply.Info.rec = info(sess.AccountID, acct.Cloud, obj)
	}
	return reply, nil
}

func (a *Area) store(ctx context.Context, c call[storeRequest]) (*resultReply, error) {
	req := c.form
	sess, err := a.bucketSession(c.contentType, req.Cookie, req.Bucket)
	if err != nil {
		return nil, err
	}
	if err := checkModifyTime(req.ModifyTime); err != nil {
		return nil, err
	}
	if req.Archive == nil {
		return nil, fail(ReasonNoFile, nil)
	}
	// All CPU work (unzipping, parsing) happens here, in the request's
	// goroutine; the actor is only asked to write what passed.
	if err := a.checkUpload(req.Archive.Data); err != nil {
		return nil, err
	}
	addr := limit.AddrKey(c.addr)
	if err := a.spendAddress(addr, len(req.Archive.Data)); err != nil {
		return nil, err
	}
	obj := &Archive{
		AccountID:  sess.AccountID,
		Bucket:     req.Bucket,
		ModifyTime: req.ModifyTime,
		Stored:     a.now().UTC(),
		Data:       req.Archive.Data, // owned by the request, stored unchanged
	}
	if _, err := a.d.Sys.Apply(ctx, sess.AccountID, &storeObject{obj: obj, quota: a.d.Quota}); err != nil {
		if !failure.Uncertain(err) {
			// Refused before anything was stored (the account's quota,
			// a full disk, a busy actor): the address's budget is for
			// what its clients store, and a player whose buckets are
			// full, auto-uploading, would spend it for everyone at the
			// address (a cafe). An upload of unknown outcome keeps it
			// spent.
			a.refundAddress(addr, len(req.Archive.Data))
		}
		return nil, err
	}
	return &resultReply{Success: true}, nil
}

// refundAddress gives back what spendAddress spent for n bytes.
func (a *Area) refundAddress(ip string, n int) {
	if a.byAddress != nil {
		a.byAddress.RefundN(ip, (n+addressUnit-1)/addressUnit)
	}
}

func (a *Area) retrieve(_ context.Context, c call[bucketRequest]) (server.Response, error) {
	req := c.form
	sess, err := a.bucketSession(c.contentType, req.Cookie, req.Bucket)
	if err != nil {
		return server.Response{}, err
	}
	obj, err := archive(a.db, sess.AccountID, req.Bucket)
	if errors.Is(err, storage.ErrNotFound) {
		return server.Response{}, fail(ReasonNotFound, nil)
	} else if err != nil {
		return server.Response{}, fail(ReasonInternal, err)
	}
	return server.Binary(obj.Data, [2]string{"Content-Disposition", "attachment; filename=" + accountID(sess.AccountID) + ".zip"}), nil
}

// spendAddress spends n bytes of the client address's budget (in KiB,
// rounded up) in one step, so that uploads from many accounts of one
// address at once never together pass it; an upload that does not fit
// spends nothing.
func (a *Area) spendAddress(ip string, n int) error {
	if a.byAddress == nil {
		return nil
	}
	if ok, wait := a.byAddress.AllowN(ip, (n+addressUnit-1)/addressUnit); !ok {
		return fail(ReasonAddressQuota, fmt.Errorf("address %s: budget spent, room for this upload in %v", ip, wait))
	}
	return nil
}

// bucketSession authenticates a call on a bucket (status, store, retrieve)
// and checks the bucket's name.
func (a *Area) bucketSession(contentType, cookie, bucket string) (*storage.Session, error) {
	sess, err := a.authenticate(contentType, cookie)
	if err != nil {
		return nil, err
	}
	if err := a.checkBucket(bucket); err != nil {
		return nil, err
	}
	return sess, nil
}

// authenticate checks that the request is multipart (its content type)
// and returns the live session of its cookie.
func (a *Area) authenticate(contentType, cookie string) (*storage.Session, error) {
	if mt, _, err := mime.ParseMediaType(contentType); err != nil || mt != mediaMultipart {
		return nil, fail(ReasonNotMultipart, fmt.Errorf("content type %q", contentType))
	}
	if cookie == "" {
		return nil, fail(ReasonNoCookie, nil)
	}
	sess, err := a.d.Login.Authenticate(cookie)
	if errors.Is(err, login.ErrInvalidCookie) {
		return nil, fail(ReasonBadCookie, err)
	} else if err != nil {
		return nil, fail(ReasonInternal, err)
	}
	return sess, nil
}

func (a *Area) checkBucket(b string) error {
	if b == "" || len(b) > MaxBucketLength || !utf8.ValidString(b) || !a.bucket.MatchString(b) {
		return fail(ReasonBadBucket, fmt.Errorf("bucket %.64q", b))
	}
	return nil
}

func checkModifyTime(s string) error {
	// The length check also keeps out the fractional seconds time.Parse
	// would accept after the seconds field.
	if len(s) != len(ModifyTimeLayout) {
		return fail(ReasonBadModifyTime, fmt.Errorf("%.64q", s))
	}
	if _, err := time.Parse(ModifyTimeLayout, s); err != nil {
		return fail(ReasonBadModifyTime, err)
	}
	return nil
}

// checkUpload validates an uploaded archive: its size, that it is a zip of
// cloud.cfg alone (nothing else in it, before or after it) within the
// uncompressed bound, and, unless strictness is off, cloud.cfg itself.
func (a *Area) checkUpload(data []byte) error {
	if int64(len(data)) > a.maxUpload {
		return fail(ReasonTooLarge, fmt.Errorf("cloud.zip of %d bytes, limit %d", len(data), a.maxUpload))
	}
	cfg, err := cloudcfg.CheckArchive(data, a.limits)
	switch {
	case errors.Is(err, cloudcfg.ErrNotZip):
		return fail(ReasonNotZip, err)
	case errors.Is(err, cloudcfg.ErrNoConfig):
		return fail(ReasonNoConfig, err)
	case errors.Is(err, cloudcfg.ErrExtraContent):
		return fail(ReasonExtraContent, err)
	case errors.Is(err, cloudcfg.ErrTooLarge):
		return fail(ReasonUnpackedTooLarge, err)
	case errors.Is(err, cloudcfg.ErrBadArchive):
		return fail(ReasonBadArchive, err)
	case err != nil:
		return fail(ReasonInternal, err)
	}
	if a.strictness == cloudcfg.Off {
		return nil
	}
	if _, err := cloudcfg.Parse(cfg, a.strictness); errors.Is(err, cloudcfg.ErrSyntax) {
		return fail(ReasonBadConfig, err)
	} else if err != nil {
		return fail(ReasonInternal, err)
	}
	return nil
}

// meta reads the metadata of a stored archive; nil when there is none.
func (a *Area) meta(id storage.AccountID, bucket string) (*Archive, error) {
	obj, err := archiveMeta(a.db, id, bucket)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, fail(ReasonInternal, err)
	}
	return obj, nil
}

// resultFail answers success false with the reason's message.
func resultFail[F, Rep any](f area.Failure[call[F], Rep]) any {
	return &resultReply{Success: false, Messages: f.Error}
}

// statusFail answers the status call's bare invalid_request, or its reply
// with the internal error's message when the server failed while serving it.
func statusFail(f area.Failure[call[bucketRequest], *statusReply]) any {
	if f.Served && f.Error == ReasonInternal.Message() {
		return &statusReply{Messages: f.Error}
	}
	return server.Text(contentInvalid, invalidRequest)
}

// info builds the info record; obj may be nil (file_modify_time null).
func info(id storage.AccountID, flags storage.CloudFlags, obj *Archive) *infoRecord {
	rec := &infoRecord{AccountID: accountID(id), UseCloud: wireFlag(flags.UseCloud), AutoUpload: wireFlag(flags.AutoUpload)}
	if obj != nil {
		t := obj.ModifyTime
		rec.FileModifyTime = &t
	}
	return rec
}

func accountID(id storage.AccountID) string { return strconv.FormatUint(uint64(id), 10) }

// parseFlag reads an enrollment switch: "0" or "1" only.
func parseFlag(s string) (value, ok bool) {
	switch s {
	case "0":
		return false, true
	case "1":
		return true, true
	}
	return false, false
}
