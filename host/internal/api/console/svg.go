package console

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"

	"github.com/memhost/memhost/host/internal/brain/banner"
	"github.com/memhost/memhost/host/internal/core/rank"
)

// Charts drawn on the server as SVG from the host's own figures: no script draws them and no
// number is computed in the browser. Each chart has a title and description for assistive
// technology, and the page shows the same figures in a table beside it.

// series is one named row of values, drawn in the chart's style with CSS class Class.
type series struct {
	Name   string
	Class  string
	Values []float64
}

// chartSpec describes one chart.
type chartSpec struct {
	ID          string // unique on its page
	Title, Desc string
	Labels      []string // one per value, along the x axis
	Series      []series
	Line        bool   // lines instead of grouped bars
	Unit        string // appended to the axis's top value
}

const (
	chartW, chartH                 = 720, 240
	padL, padR, padT, padB         = 56, 12, 20, 40
	maxTickLabels                  = 10
	barGap                         = 0.2
	axisTop                float64 = 1
)

// chart renders spec as an SVG element.
func chart(spec chartSpec) template.HTML {
	top := axisTop
	for _, s := range spec.Series {
		for _, v := range s.Values {
			if !math.IsNaN(v) && v > top {
				top = v
			}
		}
	}
	top = niceCeil(top)
	plotW, plotH := float64(chartW-padL-padR), float64(chartH-padT-padB)
	n := len(spec.Labels)
	var b strings.Builder
	id := spec.ID
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-t %s-d" xmlns="http://www.w3.org/2000/svg">`, chartW, chartH, id, id)
	fmt.Fprintf(&b, `<title id="%s-t">%s</title><desc id="%s-d">%s</desc>`, id, html.EscapeString(spec.Title), id, html.EscapeString(spec.Desc))
	// Axes and grid: four steps up to top.
	for i := 0; i <= 4; i++ {
		y := float64(padT) + plotH - plotH*float64(i)/4
		fmt.Fprintf(&b, `<line class="grid" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`, padL, y, chartW-padR, y)
		label := formatTick(top * float64(i) / 4)
		if i == 4 && spec.Unit != "" {
			label += " " + spec.Unit
		}
		fmt.Fprintf(&b, `<text class="tick" x="%d" y="%.1f" text-anchor="end">%s</text>`, padL-6, y+4, html.EscapeString(label))
	}
	// The legend, top right: each series' swatch and name.
	lx := float64(chartW - padR)
	for i := len(spec.Series) - 1; i >= 0; i-- {
		s := spec.Series[i]
		lx -= float64(14 + 7*len([]rune(s.Name)) + 12)
		fmt.Fprintf(&b, `<rect class="swatch %s" x="%.1f" y="2" width="10" height="10"/><text class="legend" x="%.1f" y="11">%s</text>`,
			s.Class, lx, lx+14, html.EscapeString(s.Name))
	}
	if n == 0 {
		fmt.Fprintf(&b, `<text class="empty" x="%d" y="%d" text-anchor="middle">no data yet</text>`, chartW/2, chartH/2)
		b.WriteString(`</svg>`)
		return template.HTML(b.String())
	}
	slot := plotW / float64(n)
	every := max(1, (n+maxTickLabels-1)/maxTickLabels)
	for i, l := range spec.Labels {
		if i%every != 0 {
			continue
		}
		x := float64(padL) + slot*(float64(i)+0.5)
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`, x, chartH-padB+16, html.EscapeString(l))
	}
	y := func(v float64) float64 {
		if math.IsNaN(v) || v < 0 {
			v = 0
		}
		return float64(padT) + plotH - plotH*v/top
	}
	if spec.Line {
		for _, s := range spec.Series {
			var pts []string
			for i, v := range s.Values {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", float64(padL)+slot*(float64(i)+0.5), y(v)))
			}
			fmt.Fprintf(&b, `<polyline class="line %s" points="%s"/>`, s.Class, strings.Join(pts, " "))
			for i, v := range s.Values {
				fmt.Fprintf(&b, `<circle class="dot %s" cx="%.1f" cy="%.1f" r="3"><title>%s %s: %s</title></circle>`, s.Class,
					float64(padL)+slot*(float64(i)+0.5), y(v), html.EscapeString(spec.Labels[i]), html.EscapeString(s.Name), formatTick(v))
			}
		}
	} else {
		k := float64(len(spec.Series))
		bw := slot * (1 - barGap) / k
		for j, s := range spec.Series {
			for i, v := range s.Values {
				x := float64(padL) + slot*float64(i) + slot*barGap/2 + bw*float64(j)
				fmt.Fprintf(&b, `<rect class="bar %s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s %s: %s</title></rect>`, s.Class,
					x, y(v), math.Max(bw-1, 1), float64(padT)+plotH-y(v), html.EscapeString(spec.Labels[i]), html.EscapeString(s.Name), formatTick(v))
			}
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// niceCeil rounds an axis's top up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// formatTick is an axis value: whole numbers without decimals, small ones with up to three.
func formatTick(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return num(int64(v))
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

// stackBar draws parts side by side on a 0..total scale, each in its CSS class: a score's
// terms, a banner's sections. Drawn as SVG so that no inline style is needed (the console's
// content security policy allows none).
func stackBar(total float64, parts ...barPart) template.HTML {
	var b strings.Builder
	b.WriteString(`<svg class="stack" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true" focusable="false">`)
	x := 0.0
	for _, p := range parts {
		if total <= 0 || p.Value <= 0 || math.IsNaN(p.Value) {
			continue
		}
		w := math.Min(100-x, 100*p.Value/total)
		fmt.Fprintf(&b, `<rect class="%s" x="%.2f" y="0" width="%.2f" height="8"/>`, p.Class, x, w)
		x += w
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// barPart is one part of a stackBar.
type barPart struct {
	Class string
	Value float64
}

// termsBar is a score's terms as a stackBar on the 0..1 scale every score lies in.
func termsBar(t rank.Terms) template.HTML {
	lex, vec := t.Lexical, t.Vector
	if lex == 0 && vec == 0 {
		lex = t.Base // spawn mode: the base half is importance's
	}
	return stackBar(1, barPart{"t-lex", lex}, barPart{"t-vec", vec}, barPart{"t-conf", t.Confidence}, barPart{"t-rec", t.Recency},
		barPart{"t-use", t.Usage}, barPart{"t-pin", t.Pinned})
}

// sectionsBar is a banner's sections' tokens as a stackBar against its budget.
func sectionsBar(sections []banner.SectionReport, budget int) template.HTML {
	parts := make([]barPart, len(sections))
	for i, s := range sections {
		parts[i] = barPart{"sec-" + string(s.Section), float64(s.Tokens)}
	}
	return stackBar(float64(budget), parts...)
}
