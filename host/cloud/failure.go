package cloud

import (
	"bytes"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
)

// Reason is why a cloud call failed. Every reason has one client-facing
// message, sent as `messages` next to `success` false.
type Reason int

// The failure reasons of the cloud calls.
const (
	ReasonInternal Reason = iota
	ReasonNotMultipart
	ReasonMalformed
	ReasonNoCookie
	ReasonBadCookie
	ReasonBadBucket
	ReasonBadEnroll
	ReasonBadModifyTime
	ReasonNoFile
	ReasonTooLarge
	ReasonNotZip
	ReasonNoConfig
	ReasonUnpackedTooLarge
	ReasonBadArchive
	ReasonExtraContent
	ReasonBadConfig
	ReasonNotFound
	ReasonTooManyBuckets
	ReasonQuota
	ReasonAddressQuota
	ReasonStorageFull
	ReasonOutcomeUnknown
	ReasonTooManyChanges
)

// messages is the one table of failure texts. "The specified key does not
// exist." is the original service's recorded text (protocol-notes §5); the
// others were never recorded.
//
//	reason                  paths                         message
//	ReasonInternal          all                           Internal error, please try again.
//	ReasonNotMultipart      enrollment, store, retrieve   The request must be sent as multipart/form-data.
//	ReasonMalformed         enrollment, store, retrieve   Malformed request.
//	ReasonNoCookie          enrollment, store, retrieve   No cookie was sent; please log in.
//	ReasonBadCookie         enrollment, store, retrieve   Invalid or expired cookie; please log in again.
//	ReasonBadBucket         store, retrieve               Missing or invalid bucket name.
//	ReasonBadEnroll         enrollment                    enroll and cloud_autoupload must be 0 or 1.
//	ReasonBadModifyTime     store                         file_modify_time must be a date and time as YYYY-MM-DD hh:mm:ss.
//	ReasonNoFile            store                         The upload has no file part named cloud.zip.
//	ReasonTooLarge          store (and any body too long) The upload is larger than the server accepts.
//	ReasonNotZip            store                         cloud.zip is not a zip archive.
//	ReasonNoConfig          store                         cloud.zip does not contain cloud.cfg.
//	ReasonUnpackedTooLarge  store                         cloud.zip unpacks to more than the server accepts.
//	ReasonBadArchive        store                         cloud.zip is damaged, encrypted or uses an unsupported compression method.
//	ReasonExtraContent      store                         cloud.zip must hold cloud.cfg alone, with nothing before or after it.
//	ReasonBadConfig         store                         cloud.cfg contains a line the server does not accept.
//	ReasonNotFound          retrieve                      The specified key does not exist.
//	ReasonTooManyBuckets    store                         This account stores settings in too many buckets.
//	ReasonQuota             store                         This account's cloud storage is full.
//	ReasonAddressQuota      store                         Too many settings were stored from your address; please try again later.
//	ReasonStorageFull       enrollment, store             The server cannot save right now; nothing was changed. Please try again later.
//	ReasonOutcomeUnknown    enrollment, store             The server was too slow to confirm the save; it may or may not have been done. Please check and try again.
//	ReasonTooManyChanges    enrollment                    Cloud settings were switched too often; please wait a moment and try again.
//
// The status call answers the bare word invalid_request instead of any of
// these, except ReasonInternal.
var messages = map[Reason]string{
	ReasonInternal:         "Internal error, please try again.",
	ReasonNotMultipart:     "The request must be sent as multipart/form-data.",
	ReasonMalformed:        "Malformed request.",
	ReasonNoCookie:         "No cookie was sent; please log in.",
	ReasonBadCookie:        "Invalid or expired cookie; please log in again.",
	ReasonBadBucket:        "Missing or invalid bucket name.",
	ReasonBadEnroll:        "enroll and cloud_autoupload must be 0 or 1.",
	ReasonBadModifyTime:    "file_modify_time must be a date and time as YYYY-MM-DD hh:mm:ss.",
	ReasonNoFile:           "The upload has no file part named cloud.zip.",
	ReasonTooLarge:         "The upload is larger than the server accepts.",
	ReasonNotZip:           "cloud.zip is not a zip archive.",
	ReasonNoConfig:         "cloud.zip does not contain cloud.cfg.",
	ReasonUnpackedTooLarge: "cloud.zip unpacks to more than the server accepts.",
	ReasonBadArchive:       "cloud.zip is damaged, encrypted or uses an unsupported compression method.",
	ReasonExtraContent:     "cloud.zip must hold cloud.cfg alone, with nothing before or after it.",
	ReasonBadConfig:        "cloud.cfg contains a line the server does not accept.",
	ReasonNotFound:         "The specified key does not exist.",
	ReasonTooManyBuckets:   "This account stores settings in too many buckets.",
	ReasonQuota:            "This account's cloud storage is full.",
	ReasonAddressQuota:     "Too many settings were stored from your address; please try again later.",
	ReasonStorageFull:      "The server cannot save right now; nothing was changed. Please try again later.",
	ReasonOutcomeUnknown:   "The server was too slow to confirm the save; it may or may not have been done. Please check and try again.",
	ReasonTooManyChanges:   "Cloud settings were switched too often; please wait a moment and try again.",
}

// Message returns the client-facing text of r.
func (r Reason) Message() string {
	if m, ok := messages[r]; ok {
		return m
	}
	return messages[ReasonInternal]
}

// Area names the cloud area in error texts.
func (Reason) Area() string { return AreaName }

// Error is a cloud call failure with its reason; the cause, if any, is for
// logs only and never reaches the client.
type Error = failure.Error[Reason]

func fail(r Reason, cause error) error { return failure.New(r, cause) }

// ReasonOf returns the reason of a cloud error; errors of other kinds are
// internal.
func ReasonOf(err error) Reason { return failure.ReasonOf(err, ReasonInternal) }

// replies is the area's table of causes (host/area): every failure is
// answered with its reason's message. A change whose outcome is unknown
// says so first, whatever else the error says; then each reason's
// failures (fail); then a change refused by a quota or by storage
// (nothing written), a body too large and a request that could not be
// read; anything else is internal. A reply counts in the metrics by its
// messages: the server's own failures as errors, the others as refusals.
var replies = func() *area.Replies {
	answer := func(r Reason) area.Answer {
		a := area.Answer{Error: r.Message()}
		if r == ReasonInternal || r == ReasonStorageFull || r == ReasonOutcomeUnknown {
			a.Outcome = server.OutcomeError
		}
		return a
	}
	t := area.CauseTable{Key: "messages", OutcomeUnknown: answer(ReasonOutcomeUnknown), Internal: answer(ReasonInternal)}
	for r := range Reason(len(messages)) {
		t.Rows = append(t.Rows, area.Row{Err: &Error{Reason: r}, Answer: answer(r)})
	}
	t.Rows = append(t.Rows,
		area.Row{Err: errTooManyBuckets, Answer: answer(ReasonTooManyBuckets)},
		area.Row{Err: errQuota, Answer: answer(ReasonQuota)},
		area.Row{Cause: area.CauseStorageFull, Answer: answer(ReasonStorageFull)},
		area.Row{Err: wire.ErrBodyTooLarge, Answer: answer(ReasonTooLarge)},
		area.Row{Cause: area.CauseBadRequest, Answer: answer(ReasonMalformed)})
	return area.NewReplies(AreaName, nil, t)
}()

// replyOutcome is how a reply of the area counts in the metrics and the
// access log (server.Route.Outcome): by its messages (replies), and the
// status call's bare word as a refusal.
func replyOutcome(body []byte) string {
	if bytes.Equal(body, []byte(invalidRequest)) {
		return server.OutcomeRefused
	}
	return replies.Outcome(body)
}
