package reports

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

// allSet fails the test when a field of v (a struct, walked into embedded
// and nested structs) is zero: the round trip below then covers every field,
// and a field added later without its protobuf counterpart fails here.
func allSet(t *testing.T, what string, v reflect.Value) {
	t.Helper()
	for i := 0; i < v.NumField(); i++ {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch {
		case (name == "Resolution" || name == "ReporteeDeleted") && v.Type() == reflect.TypeOf(Report{}):
			// not part of the report's record (joined when read: Load)
		case f.Kind() == reflect.Struct && f.Type() != reflect.TypeOf(time.Time{}):
			allSet(t, what+"."+name, f)
		case f.IsZero():
			t.Errorf("%s.%s is zero in the round-trip sample", what, name)
		}
	}
}

func roundTrip[T any, M proto.Message](t *testing.T, c recordCodec[T, M], v *T) {
	t.Helper()
	allSet(t, reflect.TypeOf(v).Elem().Name(), reflect.ValueOf(v).Elem())
	b, err := c.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || b[0] != 2 {
		t.Fatalf("%T: format byte %v, want 2 (protobuf)", v, b[:1])
	}
	var m M
	m = m.ProtoReflect().New().Interface().(M)
	if err := proto.Unmarshal(b[1:], m); err != nil {
		t.Fatalf("%T: not protobuf after the format byte: %v", v, err)
	}
	back, err := c.Decode(b)
	if err != nil || !reflect.DeepEqual(back, v) {
		t.Errorf("%T round trip:\n got %+v (%v)\nwant %+v", v, back, err, v)
	}
}

var (
	t1 = time.Date(2026, 11, 20, 10, 0, 0, 1, time.UTC)
	t2 = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
)

// New records are protobuf behind the format byte 2, and every field of
// every record survives the round trip.
func TestRecordsRoundTrip(t *testing.T) {
	roundTrip(t, reportCodec, &Report{ID: ReportID{Reporter: 7, Seq: 3}, Reporter: Account{ID: 7, Owner: 6, Nickname: "Rep"},
		Draft: Draft{Source: SourceMaster, Reportee: Account{ID: 9, Owner: 8, Nickname: "Bad"}, Reason: reportsapi.ReasonAFK,
			Text: "afk all game", RawText: "afk all game\\'", Truncated: true, Match: "12345", Minute: 17},
		Received: t1, SysInfo: "pre_auth=a srpAuth=b", Priority: 2})
	roundTrip(t, reporterCodec, &reporterState{LastSeq: 41})
	roundTrip(t, sysInfoCodec, &sysInfo{PreAuth: "mac|os|cpu|gpu|ram", SRPAuth: "hash"})
	roundTrip(t, resolutionCodec, &Resolution{Report: ReportID{Reporter: 7, Seq: 3}, Action: rules.ActionSuspend, Days: 3,
		Note: "repeat offender", Moderator: "admin", Time: t1})
	roundTrip(t, moderationCodec, &Moderation{Standing: rules.StandingSuspended, Reason: reportsapi.ReasonFeeding, Note: "n",
		Report: ReportID{Reporter: 7, Seq: 3}, Since: t1, Until: t2, PopupPending: true, GuiltyLevel: 2, Suspensions: 1, WarnUntil: t2.Add(time.Hour)})
	roundTrip(t, indexCodec, &indexValue{Reportee: 9, ReporterCreated: time.Unix(0, 1_700_000_000_000_000_000).UTC()})
}

// Records written as JSON by earlier versions (format byte 1, the bytes
// below as that code wrote them) still read.
func TestRecordsReadJSON(t *testing.T) {
	old := func(s string) []byte { return append([]byte{1}, s...) }
	rep, err := reportCodec.Decode(old(`{"ID":{"Reporter":7,"Seq":3},"Reporter":{"ID":7,"Owner":7,"Nickname":"Rep"},` +
		`"Source":1,"Reportee":{"ID":9,"Owner":9,"Nickname":"Bad"},"Reason":4,"Text":"spam","RawText":"spam'",` +
		`"Truncated":false,"Match":"12345","Minute":17,"Received":"2026-11-20T10:00:00.000000001Z",` +
		`"SysInfo":"pre_auth=a srpAuth=b","Priority":1,"Resolution":null}`))
	wantRep := &Report{ID: ReportID{Reporter: 7, Seq: 3}, Reporter: Account{ID: 7, Owner: 7, Nickname: "Rep"},
		Draft: Draft{Source: SourceReport2, Reportee: Account{ID: 9, Owner: 9, Nickname: "Bad"}, Reason: reportsapi.Reason(4),
			Text: "spam", RawText: "spam'", Match: "12345", Minute: 17},
		Received: t1, SysInfo: "pre_auth=a srpAuth=b", Priority: 1}
	if err != nil || !reflect.DeepEqual(rep, wantRep) {
		t.Errorf("old report:\n got %+v (%v)\nwant %+v", rep, err, wantRep)
	}
	mod, err := moderationCodec.Decode(old(`{"Standing":2,"Reason":2,"Note":"n","Report":{"Reporter":7,"Seq":3},` +
		`"Since":"2026-11-20T10:00:00.000000001Z","Until":"2026-11-27T10:00:00Z","PopupPending":true,"GuiltyLevel":2,"Suspensions":1}`))
	wantMod := &Moderation{Standing: rules.StandingSuspended, Reason: reportsapi.Reason(2), Note: "n", Report: ReportID{Reporter: 7, Seq: 3},
		Since: t1, Until: t2, PopupPending: true, GuiltyLevel: 2, Suspensions: 1}
	if err != nil || !reflect.DeepEqual(mod, wantMod) {
		t.Errorf("old moderation:\n got %+v (%v)\nwant %+v", mod, err, wantMod)
	}
	res, err := resolutionCodec.Decode(old(`{"Report":{"Reporter":7,"Seq":3},"Action":3,"Days":3,"Note":"x","Moderator":"admin","Time":"2026-11-27T10:00:00Z"}`))
	if err != nil || !reflect.DeepEqual(res, &Resolution{Report: ReportID{7, 3}, Action: rules.ActionSuspend, Days: 3, Note: "x", Moderator: "admin", Time: t2}) {
		t.Errorf("old resolution: %+v, %v", res, err)
	}
	if v, err := reporterCodec.Decode(old(`{"LastSeq":41}`)); err != nil || v.LastSeq != 41 {
		t.Errorf("old reporter state: %+v, %v", v, err)
	}
	if v, err := sysInfoCodec.Decode(old(`{"PreAuth":"p","SRPAuth":"s"}`)); err != nil || *v != (sysInfo{"p", "s"}) {
		t.Errorf("old sysinfo: %+v, %v", v, err)
	}
	for in, want := range map[string]storage.AccountID{`{"Reportee":9}`: 9, `{}`: 0} {
		if v, err := indexCodec.Decode(old(in)); err != nil || v.Reportee != want {
			t.Errorf("old index value %s: %+v, %v", in, v, err)
		}
	}
	for _, bad := range [][]byte{nil, {1}, old(`{"LastSeq":"x"}`), {3, 8, 1}, {2, 0xff}} {
		if _, err := reporterCodec.Decode(bad); !errors.Is(err, storage.ErrCorrupt) {
			t.Errorf("Decode(%q) err = %v, want ErrCorrupt", bad, err)
		}
	}
}
