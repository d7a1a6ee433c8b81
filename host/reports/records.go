package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/honmaster/masterserver/host/reports/internal/reportspb"
	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

// The area's records. Every write goes through one account's actor:
//
//	per reporter (written by the reporter's actor, in the commit that files)
//	  reports.report      x/…/<reporter><seq:4>       the submission (Report without Resolution)
//	  reports.reporter    x/…/<reporter>              last sequence number
//	  reports.queue       i/…/<received ns:8><seq:4><reporter>   the moderation queue, oldest first
//	  reports.by_reportee i/…/<reportee:4><seq:4><reporter>      reports against one player (value: the reporter's creation)
//	per account, written at login (the account's actor, in the session's commit)
//	  reports.sysinfo     x/…/<account>               the latest SysInfo of pre_auth and srpAuth
//	per reportee (written by the reportee's actor, in the commit that resolves)
//	  reports.resolution  x/…/<reportee><reporter:4><seq:4>   a moderator's verdict
//	  reports.moderation  x/…/<reportee>              the account's moderation state
//	per reporter, for a reportee deleted since (the reporter's actor, in the commit that dismisses)
//	  reports.orphan_resolution x/…/<reporter><seq:4>  the dismissal of a report whose reportee is gone
//	kept counts (storage.CountKeyspace, n/…; counts.go): changed in the commits above
//	  reports.open, reports.reporters, reports.by_hour        open reports per reporter and reportee,
//	                                                          distinct reporters per reportee (and per creation hour)
//
// The two indexes are entries owned by the reporter (storage.IndexKeyspace)
// written in the same batch as the report, so after a crash either all
// three exist or none. A report's status is derived by joining it with its
// resolution (Load); nothing is read-modify-written by two writers.
//
// A report against an account deleted since has no reportee's actor to
// resolve it (the account's records, its resolutions among them, went
// with it): only a dismissal is possible, and the reporter's actor records
// it beside the report (reports.orphan_resolution), after reading that the
// reportee is gone. An account is never restored and its id never reused,
// so a report has a resolution in one of the two places at most.
//
// Records are protobuf (host/reports/proto/reports_records.proto) behind
// storage's protobuf format byte (2), like every other record. Records
// written by earlier versions are JSON behind the format byte 1: they still
// read (the format byte tells), with no migration. A record that changes
// (the reporter's counter, the moderation state, the SysInfo) is written
// back as protobuf; reports and resolutions, written once, stay as they
// are.
var (
	reportRecords     = storage.NewAccountKeyspace[*Report]("reports.report", reportCodec)
	reporterRecords   = storage.NewAccountKeyspace[*reporterState]("reports.reporter", reporterCodec)
	sysInfoRecords    = storage.NewAccountKeyspace[*sysInfo]("reports.sysinfo", sysInfoCodec)
	resolutionRecords = storage.NewAccountKeyspace[*Resolution]("reports.resolution", resolutionCodec)
	moderationRecords = storage.NewAccountKeyspace[*Moderation]("reports.moderation", moderationCodec)
	orphanResolutions = storage.NewAccountKeyspace[*Resolution]("reports.orphan_resolution", resolutionCodec)
	queueIndex        = storage.NewIndexKeyspace[*indexValue]("reports.queue", indexCodec)
	reporteeIndex     = storage.NewIndexKeyspace[*indexValue]("reports.by_reportee", indexCodec)
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
// report (the reportee in the queue), and in the reportee index the
// reporter's account creation, so a scan needs no extra read.
type indexValue struct {
	Reportee        storage.AccountID `json:",omitempty"`
	ReporterCreated time.Time         `json:",omitzero"` // zero: not kept (an entry of an earlier version)
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

// recordCodec stores *T as its protobuf message M (storage.Proto: format
// byte 2) and reads both that and the JSON of earlier versions (format
// byte 1).
type recordCodec[T any, M proto.Message] struct {
	to   func(*T) M
	from func(M) *T
}

// jsonFormat is the format byte of the JSON records of earlier versions.
const jsonFormat = 1

func (c recordCodec[T, M]) Encode(v *T) ([]byte, error) { return storage.Proto[M]().Encode(c.to(v)) }

func (c recordCodec[T, M]) Decode(b []byte) (*T, error) {
	if len(b) > 0 && b[0] == jsonFormat {
		v := new(T)
		if err := json.Unmarshal(b[1:], v); err != nil {
			return nil, fmt.Errorf("%w: %v", storage.ErrCorrupt, err)
		}
		return v, nil
	}
	m, err := storage.Proto[M]().Decode(b)
	if err != nil {
		return nil, err
	}
	return c.from(m), nil
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func toAccountPB(a Account) *reportspb.Account {
	return &reportspb.Account{Id: uint32(a.ID), Owner: uint32(a.Owner), Nickname: a.Nickname}
}

func fromAccountPB(a *reportspb.Account) Account {
	return Account{ID: storage.AccountID(a.GetId()), Owner: storage.AccountID(a.GetOwner()), Nickname: a.GetNickname()}
}

// The codecs of the records. A report's Resolution is not part of its
// record (it is the reportee's resolutionRecords).
var (
	reportCodec = recordCodec[Report, *reportspb.Report]{
		to: func(r *Report) *reportspb.Report {
			return &reportspb.Report{ReporterId: uint32(r.ID.Reporter), Seq: r.ID.Seq, Reporter: toAccountPB(r.Reporter),
				Source: uint32(r.Source), Reportee: toAccountPB(r.Reportee), Reason: uint32(r.Reason), Text: r.Text,
				RawText: r.RawText, Truncated: r.Truncated, Match: r.Match, Minute: int64(r.Minute),
				ReceivedUnixNano: nanos(r.Received), SysInfo: r.SysInfo, Priority: int64(r.Priority)}
		},
		from: func(m *reportspb.Report) *Report {
			return &Report{ID: ReportID{Reporter: storage.AccountID(m.ReporterId), Seq: m.Seq}, Reporter: fromAccountPB(m.Reporter),
				Draft: Draft{Source: Source(m.Source), Reportee: fromAccountPB(m.Reportee), Reason: reportsapi.Reason(m.Reason),
					Text: m.Text, RawText: m.RawText, Truncated: m.Truncated, Match: m.Match, Minute: int(m.Minute)},
				Received: fromNanos(m.ReceivedUnixNano), SysInfo: m.SysInfo, Priority: int(m.Priority)}
		},
	}
	reporterCodec = recordCodec[reporterState, *reportspb.ReporterState]{
		to:   func(s *reporterState) *reportspb.ReporterState { return &reportspb.ReporterState{LastSeq: s.LastSeq} },
		from: func(m *reportspb.ReporterState) *reporterState { return &reporterState{LastSeq: m.LastSeq} },
	}
	sysInfoCodec = recordCodec[sysInfo, *reportspb.SysInfo]{
		to:   func(s *sysInfo) *reportspb.SysInfo { return &reportspb.SysInfo{PreAuth: s.PreAuth, SrpAuth: s.SRPAuth} },
		from: func(m *reportspb.SysInfo) *sysInfo { return &sysInfo{PreAuth: m.PreAuth, SRPAuth: m.SrpAuth} },
	}
	resolutionCodec = recordCodec[Resolution, *reportspb.Resolution]{
		to: func(r *Resolution) *reportspb.Resolution {
			return &reportspb.Resolution{ReportReporter: uint32(r.Report.Reporter), ReportSeq: r.Report.Seq,
				Action: uint32(r.Action), Days: int64(r.Days), Note: r.Note, Moderator: r.Moderator, TimeUnixNano: nanos(r.Time)}
		},
		from: func(m *reportspb.Resolution) *Resolution {
			return &Resolution{Report: ReportID{Reporter: storage.AccountID(m.ReportReporter), Seq: m.ReportSeq},
				Action: rules.Action(m.Action), Days: int(m.Days), Note: m.Note, Moderator: m.Moderator, Time: fromNanos(m.TimeUnixNano)}
		},
	}
	moderationCodec = recordCodec[Moderation, *reportspb.Moderation]{
		to: func(v *Moderation) *reportspb.Moderation {
			return &reportspb.Moderation{Standing: uint32(v.Standing), Reason: uint32(v.Reason), Note: v.Note,
				ReportReporter: uint32(v.Report.Reporter), ReportSeq: v.Report.Seq, SinceUnixNano: nanos(v.Since),
				UntilUnixNano: nanos(v.Until), PopupPending: v.PopupPending, GuiltyLevel: int64(v.GuiltyLevel),
				Suspensions: int64(v.Suspensions), WarnUntilUnixNano: nanos(v.WarnUntil)}
		},
		from: func(m *reportspb.Moderation) *Moderation {
			return &Moderation{Standing: rules.Standing(m.Standing), Reason: reportsapi.Reason(m.Reason), Note: m.Note,
				Report: ReportID{Reporter: storage.AccountID(m.ReportReporter), Seq: m.ReportSeq}, Since: fromNanos(m.SinceUnixNano),
				Until: fromNanos(m.UntilUnixNano), PopupPending: m.PopupPending, GuiltyLevel: int(m.GuiltyLevel),
				Suspensions: int(m.Suspensions), WarnUntil: fromNanos(m.WarnUntilUnixNano)}
		},
	}
	indexCodec = recordCodec[indexValue, *reportspb.IndexEntry]{
		to: func(v *indexValue) *reportspb.IndexEntry {
			return &reportspb.IndexEntry{Reportee: uint32(v.Reportee), ReporterCreated: nanos(v.ReporterCreated)}
		},
		from: func(m *reportspb.IndexEntry) *indexValue {
			return &indexValue{Reportee: storage.AccountID(m.Reportee), ReporterCreated: fromNanos(m.ReporterCreated)}
		},
	}
)

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

// orphanResolutionsAll reads every dismissal of a report whose reportee was
// deleted (one scan of a keyspace only such dismissals fill).
func orphanResolutionsAll(db *storage.DB) (map[ReportID]Resolution, error) {
	out := map[ReportID]Resolution{}
	err := orphanResolutions.EachAll(db, func(_ storage.AccountID, _ string, r *Resolution) error {
		out[r.Report] = *r
		return nil
	})
	return out, err
}
