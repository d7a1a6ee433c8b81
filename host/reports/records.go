package reports

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/storage"
)

// The area's records. Every write goes through one account's actor:
//
//	per reporter (written by the reporter's actor, in the commit that files)
//	  reports.report      x/…/<reporter><seq:4>       the submission (Report without Resolution)
//	  reports.reporter    x/…/<reporter>              last sequence number
//	  reports.queue       i/…/<received ns:8><seq:4><reporter>   the moderation queue, oldest first
//	  reports.by_reportee i/…/<reportee:4><seq:4><reporter>      reports against one player
//	per account, written at login (the account's actor, in the session's commit)
//	  reports.sysinfo     x/…/<account>               the latest SysInfo of pre_auth and srpAuth
//	per reportee (written by the reportee's actor, in the commit that resolves)
//	  reports.resolution  x/…/<reportee><reporter:4><seq:4>   a moderator's verdict
//	  reports.moderation  x/…/<reportee>              the account's moderation state
//
// The two indexes are entries owned by the reporter (storage.IndexKeyspace)
// written in the same batch as the report, so after a crash either all
// three exist or none. A report's status is derived by joining it with its
// resolution (Join); nothing is read-modify-written by two writers.
//
// Records are JSON behind a format byte (1): they are small, written once
// and read by moderators and at login, and JSON keeps them readable with
// the standard library alone. A later format byte can move them to
// protobuf without a migration of the others.
var (
	reportRecords     = storage.NewAccountKeyspace[*Report]("reports.report", jsonCodec[Report]{})
	reporterRecords   = storage.NewAccountKeyspace[*reporterState]("reports.reporter", jsonCodec[reporterState]{})
	sysInfoRecords    = storage.NewAccountKeyspace[*sysInfo]("reports.sysinfo", jsonCodec[sysInfo]{})
	resolutionRecords = storage.NewAccountKeyspace[*Resolution]("reports.resolution", jsonCodec[Resolution]{})
	moderationRecords = storage.NewAccountKeyspace[*Moderation]("reports.moderation", jsonCodec[Moderation]{})
	queueIndex        = storage.NewIndexKeyspace[*indexValue]("reports.queue", jsonCodec[indexValue]{})
	reporteeIndex     = storage.NewIndexKeyspace[*indexValue]("reports.by_reportee", jsonCodec[indexValue]{})
)

// reporterState is a reporter's own counter.
type reporterState struct {
	LastSeq uint32
}

// sysInfo is the latest SysInfo an account's client sent.
type sysInfo struct {
	PreAuth string // pre_auth: MAC|OS|CPU|GPU|RAM, or "not running on windows"
	SRPAuth string // srpAuth: a hardware-id hash five times, or "not obtainable"
}

// maxSysInfoBytes bounds each stored SysInfo: the client's are far shorter.
const maxSysInfoBytes = 512

// String is the SysInfo as a report keeps it.
func (s *sysInfo) String() string {
	if s == nil || (s.PreAuth == "" && s.SRPAuth == "") {
		return ""
	}
	return "pre_auth=" + s.PreAuth + " srpAuth=" + s.SRPAuth
}

// indexValue is the value of an index entry: the other account of the
// report (the reportee in the queue), so a scan needs no extra read.
type indexValue struct {
	Reportee storage.AccountID `json:",omitempty"`
}

func seqKey(seq uint32) string { return storage.KeyUint32(seq) }

func idKey(id ReportID) string {
	return storage.KeyUint32(uint32(id.Reporter)) + storage.KeyUint32(id.Seq)
}

func queueKey(r *Report) string {
	return storage.KeyUint64(uint64(r.Received.UnixNano())) + storage.KeyUint32(r.ID.Seq)
}

func reporteeKey(reportee storage.AccountID, seq uint32) string {
	return storage.KeyUint32(uint32(reportee)) + storage.KeyUint32(seq)
}

// jsonCodec stores *T as a format byte and JSON.
type jsonCodec[T any] struct{}

const recordFormat = 1

func (jsonCodec[T]) Encode(v *T) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append([]byte{recordFormat}, b...), nil
}

func (jsonCodec[T]) Decode(b []byte) (*T, error) {
	if len(b) == 0 || b[0] != recordFormat {
		return nil, fmt.Errorf("%w: unknown report record format", storage.ErrCorrupt)
	}
	v := new(T)
	if err := json.Unmarshal(b[1:], v); err != nil {
		return nil, fmt.Errorf("%w: %v", storage.ErrCorrupt, err)
	}
	return v, nil
}

// getOr reads a record, treating "none" as the zero value.
func getOr[T any](ks *storage.AccountKeyspace[*T], db *storage.DB, id storage.AccountID, key string) (*T, error) {
	v, err := ks.Get(db, id, key)
	if errors.Is(err, storage.ErrNotFound) {
		return new(T), nil
	}
	return v, err
}

// resolutionsOf reads every resolution of reports against reportee.
func resolutionsOf(db *storage.DB, reportee storage.AccountID) (map[ReportID]Resolution, error) {
	out := map[ReportID]Resolution{}
	err := resolutionRecords.Each(db, reportee, "", func(_ string, r *Resolution) error {
		out[r.Report] = *r
		return nil
	})
	return out, err
}
