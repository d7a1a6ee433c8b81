package loadtest

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// WriteHTML writes the report as one self-contained HTML page: the table,
// latency and throughput over time, and each operation's latency
// histogram, drawn as inline SVG (nothing is fetched to view it).
func (r *Report) WriteHTML(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>honmaster load test</title><style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right;border-bottom:1px solid #ddd}
td:first-child,th:first-child{text-align:left}svg{background:#fafafa;border:1px solid #ddd;margin:4px 0}.bad{color:#b00}
</style></head><body>`)
	ok, errs := r.Total()
	fmt.Fprintf(&b, "<h1>Load test of %s</h1><p>%s loop, concurrency %d", html.EscapeString(r.Target), r.Mode, r.Concurrency)
	if r.Rate > 0 {
		fmt.Fprintf(&b, ", rate %.0f/s", r.Rate)
	}
	if r.Sequential {
		b.WriteString(", operations one after another")
		if r.Rounds > 1 {
			fmt.Fprintf(&b, ", %d rounds", r.Rounds)
		}
		if r.Bracket {
			b.WriteString(", a no-op phase before and after each operation's")
		}
	}
	fmt.Fprintf(&b, "; %d accounts (%s…); mix %s; started %s; %s; %d ok, %d errors",
		r.Accounts, html.EscapeString(r.LoginPrefix), html.EscapeString(r.Mix), r.Started.Format(time.RFC3339), r.Elapsed.Round(time.Millisecond), ok, errs)
	if r.Unsent > 0 {
		fmt.Fprintf(&b, "; %d due but never sent", r.Unsent)
	}
	b.WriteString("</p>")
	if r.Stopped != "" {
		what := "The run"
		if r.Sequential {
			what = "The last phase"
		}
		fmt.Fprintf(&b, "<p>%s stopped: %s.</p>", what, html.EscapeString(r.Stopped))
	}
	cpu, byRound := r.hasCPU(), r.cpuByRound()
	b.WriteString("<table><tr><th>operation</th><th>requests/op</th><th>ok</th><th>errors</th><th>retried</th><th>ops/s</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th>vs noop</th>")
	if cpu {
		b.WriteString("<th>server CPU/op</th><th>CPU vs noop</th>")
	}
	if byRound {
		b.WriteString("<th>CPU vs noop by round</th>")
	}
	b.WriteString("</tr>")
	for _, o := range r.Ops {
		name := html.EscapeString(o.Name)
		if o.FallbackOf != "" {
			name = fmt.Sprintf(`<span title="%s">%s</span>`, html.EscapeString(o.Fallback), name)
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%.0f</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>",
			name, o.Requests, o.OK, o.Errors, o.Retried, o.Throughput, round(o.P50), round(o.P90), round(o.P99), round(o.P999), round(o.Max), ratioText(o.Ratio))
		if cpu {
			fmt.Fprintf(&b, "<td>%s</td><td>%s</td>", round(o.CPUPerOp), ratioText(o.CPURatio))
		}
		if byRound {
			fmt.Fprintf(&b, "<td>%s</td>", o.roundRatiosText())
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table><ul>")
	for _, o := range r.Ops {
		if o.FallbackOf != "" {
			fmt.Fprintf(&b, "<li>%s: a %s that did not do its own work (%s); counted apart from the %s row.</li>",
				html.EscapeString(o.Name), html.EscapeString(o.FallbackOf), html.EscapeString(o.Fallback), html.EscapeString(o.FallbackOf))
		}
	}
	for _, l := range r.ratioNotes() {
		fmt.Fprintf(&b, "<li>%s</li>", html.EscapeString(l))
	}
	b.WriteString("<li>retried: requests sent again because the server had closed the idle keep-alive connection they went out on before reading them (never applied; not errors).</li></ul>")
	for _, o := range r.Ops {
		for _, k := range slices.Sorted(maps.Keys(o.Kinds)) {
			fmt.Fprintf(&b, "<p class=bad>%s: %d × %s (first: %s)</p>", html.EscapeString(o.Name), o.Kinds[k], html.EscapeString(k), html.EscapeString(o.FirstErrors[k]))
		}
	}
	fmt.Fprintf(&b, "<p>Consistency: %s</p>", html.EscapeString(r.Consistency.Summary()))
	if s := r.Server; s != nil {
		b.WriteString("<h2>Server during the run</h2><ul>")
		for _, l := range s.Summary() {
			fmt.Fprintf(&b, "<li>%s</li>", html.EscapeString(l))
		}
		b.WriteString("</ul><p>(From its metrics, after − before; every counter is in the JSON report.)</p>")
	}
	b.WriteString("<h2>Over time</h2>")
	b.WriteString(r.timelineSVG())
	b.WriteString("<h2>Latency histograms</h2><p>All on one axis: the same latency scale (log) across, and the same share of the operation's successful operations up.</p>")
	axis := newHistAxis(r.Ops)
	for _, o := range r.Ops {
		fmt.Fprintf(&b, "<h3>%s</h3>%s", html.EscapeString(o.Name), axis.svg(o.Buckets))
	}
	b.WriteString("</body></html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

const svgW, svgH, pad = 800, 220, 40

// timelineSVG draws ok/s as bars and p50/p99 as lines (log scale).
func (r *Report) timelineSVG() string {
	n := len(r.Timeline)
	if n == 0 {
		return "<p>no data</p>"
	}
	var maxOK int64
	var maxLat, minLat time.Duration = 0, time.Hour
	for _, s := range r.Timeline {
		maxOK = max(maxOK, s.OK)
		if s.P99 > 0 {
			maxLat = max(maxLat, s.P99)
			minLat = min(minLat, s.P50)
		}
	}
	if maxOK == 0 || maxLat == 0 {
		return "<p>no data</p>"
	}
	minLat = max(minLat, time.Microsecond)
	x := func(i int) float64 { return pad + float64(i)*float64(svgW-2*pad)/float64(n) }
	yOK := func(v int64) float64 { return svgH - pad - float64(v)/float64(maxOK)*(svgH-2*pad) }
	lo, hi := math.Log10(float64(minLat)), math.Log10(float64(maxLat))
	if hi-lo < 0.5 {
		lo -= 0.25
		hi += 0.25
	}
	yLat := func(d time.Duration) float64 {
		return svgH - pad - (math.Log10(float64(max(d, time.Microsecond)))-lo)/(hi-lo)*(svgH-2*pad)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%d" height="%d" xmlns="http://www.w3.org/2000/svg">`, svgW, svgH)
	bw := float64(svgW-2*pad) / float64(n)
	for i, s := range r.Timeline {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#cde"/>`, x(i), yOK(s.OK), max(bw-1, 1), svgH-pad-yOK(s.OK))
	}
	for _, line := range []struct {
		color string
		f     func(SecondReport) time.Duration
	}{{"#36c", func(s SecondReport) time.Duration { return s.P50 }}, {"#c33", func(s SecondReport) time.Duration { return s.P99 }}} {
		var pts []string
		for i, s := range r.Timeline {
			if s.OK > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i)+bw/2, yLat(line.f(s))))
			}
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, line.color, strings.Join(pts, " "))
	}
	fmt.Fprintf(&b, `<text x="%d" y="15" font-size="12">bars: ok/s (max %d); blue p50, red p99 (log scale %s – %s); x: seconds 0–%d</text>`,
		pad, maxOK, round(time.Duration(math.Pow(10, lo))), round(time.Duration(math.Pow(10, hi))), n)
	b.WriteString("</svg>")
	return b.String()
}

// histAxis is the one axis of every operation's histogram: the bucket
// edges of all operations (buckets uses the same log-spaced edges for
// each), and the largest share of an operation's count in one bucket.
type histAxis struct {
	edges    []time.Duration
	index    map[time.Duration]int
	maxShare float64
}

func newHistAxis(ops []OpReport) *histAxis {
	a := &histAxis{index: map[time.Duration]int{}}
	for _, o := range ops {
		var total int64
		for _, bk := range o.Buckets {
			total += bk.Count
			if _, ok := a.index[bk.UpTo]; !ok {
				a.index[bk.UpTo] = 0
				a.edges = append(a.edges, bk.UpTo)
			}
		}
		for _, bk := range o.Buckets {
			a.maxShare = max(a.maxShare, float64(bk.Count)/float64(total))
		}
	}
	slices.Sort(a.edges)
	for i, e := range a.edges {
		a.index[e] = i
	}
	return a
}

// svg draws one operation's latency distribution on the axis.
func (a *histAxis) svg(bs []Bucket) string {
	if len(bs) == 0 || len(a.edges) == 0 {
		return "<p>no successful operations</p>"
	}
	var total int64
	for _, bk := range bs {
		total += bk.Count
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%d" height="%d" xmlns="http://www.w3.org/2000/svg">`, svgW, svgH)
	bw := float64(svgW-2*pad) / float64(len(a.edges))
	for _, bk := range bs {
		share := float64(bk.Count) / float64(total)
		h := share / a.maxShare * (svgH - 2*pad)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#6a8"><title>≤ %s: %d (%.1f%%)</title></rect>`,
			pad+float64(a.index[bk.UpTo])*bw, svgH-pad-h, max(bw-1, 1), h, round(bk.UpTo), bk.Count, 100*share)
	}
	for i, e := range a.edges {
		if i%max(len(a.edges)/8, 1) == 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11">%s</text>`, pad+float64(i)*bw, svgH-pad+15, round(e))
		}
	}
	fmt.Fprintf(&b, `<text x="%d" y="15" font-size="12">share of operations by latency (top of the axis: %.1f%%)</text></svg>`, pad, 100*a.maxShare)
	return b.String()
}
