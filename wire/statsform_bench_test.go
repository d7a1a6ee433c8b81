package wire

import "testing"

// BenchmarkParseStatsForm decodes a plain 5v5 (1,040 values) and a long
// match (4,496 values) from their bodies; BenchmarkDecodeStatsForm decodes
// the long match from a Request's Form, as a host that has read the body
// already does.
func BenchmarkParseStatsForm(b *testing.B) {
	for _, bc := range []struct {
		name  string
		shape statsShape
	}{{"5v5", plain5v5}, {"long", longMatch}} {
		body, _ := statsBody(bc.shape)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseStatsForm(body, StatsFormLimits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeStatsForm(b *testing.B) {
	body, _ := statsBody(longMatch)
	form := Values{}
	fields := 0
	if err := parseURLEncoded(form, body, &fields, DefaultStatsFormLimits.MaxValues); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeStatsForm(form, StatsFormLimits{}); err != nil {
			b.Fatal(err)
		}
	}
}
