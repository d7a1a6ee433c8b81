package reportsapi

import (
	"fmt"
	"math"
	"time"

	"github.com/honmaster/masterserver/plugins/reports/reportsapi/internal/pb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Converters between the reports contract and its wire form. fromProto
// functions check shape (ranges) so a malformed message never becomes a
// plain Go value; meaning is checked by the Validate methods.

func reportFactsToProto(f Facts) *pb.ReportFacts {
	return &pb.ReportFacts{
		Reporter: f.Reporter, Reportee: f.Reportee, SameOwner: f.SameOwner, Reason: uint32(f.Reason),
		TextLen: int64(f.TextLen), Match: f.Match,
		ReporterRecentCount:         int64(f.ReporterRecentCount),
		ReporterToReporteeCount:     int64(f.ReporterToReporteeCount),
		DistinctReportersOfReportee: int64(f.DistinctReportersOfReportee),
		Limits: &pb.ReportLimits{PerDay: int64(f.Limits.PerDay), PerReportee: int64(f.Limits.PerReportee),
			MaxTextRunes: int64(f.Limits.MaxTextRunes), MaxPriority: int64(f.Limits.MaxPriority),
			NewAccountSeconds: ceilSeconds(f.Limits.NewAccountAge)},
		ReporterAgeSeconds:     ceilSeconds(f.ReporterAge),
		NewReportersOfReportee: int64(f.NewReportersOfReportee),
	}
}

// ceilSeconds is d in whole seconds, rounded up (a positive duration is at
// least 1: 0 stays "unknown" or "none").
func ceilSeconds(d time.Duration) int64 {
	s := int64(d / time.Second)
	if d%time.Second > 0 {
		s++
	}
	return s
}

// fromSeconds is the duration of s whole seconds, refusing what a
// time.Duration cannot hold.
func fromSeconds(s int64) (time.Duration, error) {
	if s < 0 || s > math.MaxInt64/int64(time.Second) {
		return 0, fmt.Errorf("%d seconds out of range", s)
	}
	return time.Duration(s) * time.Second, nil
}

func reportFactsFromProto(m *pb.ReportFacts) (Facts, error) {
	if m.GetReason() > math.MaxUint8 {
		return Facts{}, fmt.Errorf("%w: reason %d", sdk.ErrInvalidFacts, m.GetReason())
	}
	ints := []int64{m.GetTextLen(), m.GetReporterRecentCount(), m.GetReporterToReporteeCount(),
		m.GetDistinctReportersOfReportee(), m.GetLimits().GetPerDay(), m.GetLimits().GetPerReportee(),
		m.GetLimits().GetMaxTextRunes(), m.GetLimits().GetMaxPriority(), m.GetNewReportersOfReportee()}
	out := make([]int, len(ints))
	for i, v := range ints {
		n, err := toInt(v)
		if err != nil {
			return Facts{}, fmt.Errorf("%w: %w", sdk.ErrInvalidFacts, err)
		}
		out[i] = n
	}
	age, err := fromSeconds(m.GetReporterAgeSeconds())
	if err != nil {
		return Facts{}, fmt.Errorf("%w: reporter age: %w", sdk.ErrInvalidFacts, err)
	}
	newAge, err := fromSeconds(m.GetLimits().GetNewAccountSeconds())
	if err != nil {
		return Facts{}, fmt.Errorf("%w: new account age: %w", sdk.ErrInvalidFacts, err)
	}
	return Facts{
		Reporter: m.GetReporter(), Reportee: m.GetReportee(), SameOwner: m.GetSameOwner(),
		Reason: Reason(m.GetReason()), TextLen: out[0], Match: m.GetMatch(),
		ReporterRecentCount: out[1], ReporterToReporteeCount: out[2], DistinctReportersOfReportee: out[3],
		Limits: Limits{PerDay: out[4], PerReportee: out[5], MaxTextRunes: out[6], MaxPriority: out[7],
			NewAccountAge: newAge},
		ReporterAge: age, NewReportersOfReportee: out[8],
	}, nil
}

func reportDecisionToProto(d Decision) *pb.ReportDecision {
	return &pb.ReportDecision{Accept: d.Accept, Refusal: uint32(d.Refusal), Priority: int64(d.Priority)}
}

func reportDecisionFromProto(m *pb.ReportDecision) (Decision, error) {
	if m.GetRefusal() > math.MaxUint8 {
		return Decision{}, fmt.Errorf("%w: refusal %d", sdk.ErrInvalidDecision, m.GetRefusal())
	}
	p, err := toInt(m.GetPriority())
	if err != nil {
		return Decision{}, fmt.Errorf("%w: priority: %w", sdk.ErrInvalidDecision, err)
	}
	return Decision{Accept: m.GetAccept(), Refusal: Refusal(m.GetRefusal()), Priority: p}, nil
}

// toInt converts a wire int64 to int, refusing values int cannot hold.
func toInt(v int64) (int, error) {
	if int64(int(v)) != v {
		return 0, fmt.Errorf("%d overflows int", v)
	}
	return int(v), nil
}
