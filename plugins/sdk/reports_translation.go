package sdk

import (
	"fmt"
	"math"

	"github.com/honmaster/masterserver/plugins/sdk/internal/pb"
)

// Converters between the reports contract and its wire form. fromProto
// functions check shape (ranges) so a malformed message never becomes a
// plain Go value; meaning is checked by the Validate methods.

func reportFactsToProto(f ReportFacts) *pb.ReportFacts {
	return &pb.ReportFacts{
		Reporter: f.Reporter, Reportee: f.Reportee, SameOwner: f.SameOwner, Reason: uint32(f.Reason),
		TextLen: int64(f.TextLen), Match: f.Match,
		ReporterRecentCount:         int64(f.ReporterRecentCount),
		ReporterToReporteeCount:     int64(f.ReporterToReporteeCount),
		DistinctReportersOfReportee: int64(f.DistinctReportersOfReportee),
		Limits: &pb.ReportLimits{PerDay: int64(f.Limits.PerDay), PerReportee: int64(f.Limits.PerReportee),
			MaxTextRunes: int64(f.Limits.MaxTextRunes), MaxPriority: int64(f.Limits.MaxPriority)},
	}
}

func reportFactsFromProto(m *pb.ReportFacts) (ReportFacts, error) {
	if m.GetReason() > math.MaxUint8 {
		return ReportFacts{}, fmt.Errorf("%w: reason %d", ErrInvalidFacts, m.GetReason())
	}
	ints := []int64{m.GetTextLen(), m.GetReporterRecentCount(), m.GetReporterToReporteeCount(),
		m.GetDistinctReportersOfReportee(), m.GetLimits().GetPerDay(), m.GetLimits().GetPerReportee(),
		m.GetLimits().GetMaxTextRunes(), m.GetLimits().GetMaxPriority()}
	out := make([]int, len(ints))
	for i, v := range ints {
		n, err := toInt(v)
		if err != nil {
			return ReportFacts{}, fmt.Errorf("%w: %w", ErrInvalidFacts, err)
		}
		out[i] = n
	}
	return ReportFacts{
		Reporter: m.GetReporter(), Reportee: m.GetReportee(), SameOwner: m.GetSameOwner(),
		Reason: ReportReason(m.GetReason()), TextLen: out[0], Match: m.GetMatch(),
		ReporterRecentCount: out[1], ReporterToReporteeCount: out[2], DistinctReportersOfReportee: out[3],
		Limits: ReportLimits{PerDay: out[4], PerReportee: out[5], MaxTextRunes: out[6], MaxPriority: out[7]},
	}, nil
}

func reportDecisionToProto(d ReportDecision) *pb.ReportDecision {
	return &pb.ReportDecision{Accept: d.Accept, Refusal: uint32(d.Refusal), Priority: int64(d.Priority)}
}

func reportDecisionFromProto(m *pb.ReportDecision) (ReportDecision, error) {
	if m.GetRefusal() > math.MaxUint8 {
		return ReportDecision{}, fmt.Errorf("%w: refusal %d", ErrInvalidDecision, m.GetRefusal())
	}
	p, err := toInt(m.GetPriority())
	if err != nil {
		return ReportDecision{}, fmt.Errorf("%w: priority: %w", ErrInvalidDecision, err)
	}
	return ReportDecision{Accept: m.GetAccept(), Refusal: ReportRefusal(m.GetRefusal()), Priority: p}, nil
}
