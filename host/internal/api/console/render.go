package console

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/shortid"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages holds one parsed template set per page: the layout, the shared partials and the page.
type pages struct {
	byName map[string]*template.Template
}

// parsed are the console's pages, parsed once, when the first console is built (a host's
// start): they are compiled into the binary, so a template that does not parse is a defect of
// the build (the package's tests parse them all), as with template.Must. Not at the package's
// init: parsing them takes 10-20 ms, which every process of the binary would pay, `memhost run`
// and the CLIs' hooks included.
var parsed = sync.OnceValue(func() *pages {
	p, err := loadPages()
	if err != nil {
		panic(err)
	}
	return p
})

func loadPages() (*pages, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := &pages{byName: map[string]*template.Template{}}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" || base == "partials" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", n)
		if err != nil {
			return nil, fmt.Errorf("console: parse template %s: %w", base, err)
		}
		p.byName[base] = t
	}
	return p, nil
}

// me is the signed-in caller as the layout shows it, and what it may do.
type me struct {
	Name     string
	Scopes   []auth.Scope
	Bound    string // the project the token is bound to, "" for none
	CanWrite bool
	CanAdmin bool
	HostWide bool
}

// view is every page's data: the layout's and the page's own (Data).
type view struct {
	Style   template.CSS
	Script  template.JS
	Icon    template.URL
	Page    string // the template's name, which also marks the navigation's current entry
	Me      *me
	Project string // the project the page shows, "" when it shows none
	CSRF    string
	Note    string // a one-time note after a change (?note=)
	Path    string // this page's path and query, where forms return to
	Data    any
}

// render writes one page. A template that fails is an internal error logged here; the
// browser gets a plain error, as nothing of the page was sent yet.
func (c *Console) render(w http.ResponseWriter, r *http.Request, cl *call, status int, name string, data any) {
	t := c.pages.byName[name]
	v := view{Page: name, Note: r.URL.Query().Get("note"), Path: r.URL.RequestURI(), Data: data,
		Style: inlineStyle, Script: inlineScript, Icon: inlineIcon}
	if cl != nil {
		p := cl.p
		v.Me = &me{Name: p.Name, Scopes: p.Scopes, Bound: p.ProjectKey, CanWrite: p.Has(auth.ScopeWrite),
			CanAdmin: p.Has(auth.ScopeAdmin), HostWide: p.HostWide()}
		v.CSRF = cl.csrf
		v.Project = p.ProjectKey
		if v.Project == "" {
			v.Project = strings.TrimSpace(r.FormValue("project"))
		}
	}
	var buf bytes.Buffer
	if t == nil {
		c.Logger.Error("console: no template", "page", name)
		http.Error(w, "internal error; see the memhost host log", http.StatusInternalServerError)
		return
	}
	if err := t.Execute(&buf, v); err != nil {
		c.Logger.Error("console: render", "page", name, "err", err)
		http.Error(w, "internal error; see the memhost host log", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// funcs are the templates' helpers: formatting only, never a figure of their own.
var funcs = template.FuncMap{
	"short": func(id uuid.UUID) string { return shortid.Of(id) },
	"shortp": func(id *uuid.UUID) string {
		if id == nil {
			return ""
		}
		return shortid.Of(*id)
	},
	"text": rules.Printable,
	"line": rules.PrintableLine,
	"clip": clip,
	"when": when,
	"iso":  func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"isop": func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	},
	"whenp":    func(t *time.Time) string { return whenPtr(t) },
	"ago":      ago,
	"agop":     func(t *time.Time) string { return agoPtr(t) },
	"num":      num,
	"fixed":    func(digits int, f float64) string { return fmt.Sprintf("%.*f", digits, f) },
	"pct":      func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"url":      pageURL,
	"join":     func(sep string, s []string) string { return strings.Join(s, sep) },
	"scopes":   scopeNames,
	"bytes":    rules.HumanBytes,
	"seconds":  func(f float64) string { return (time.Duration(f * float64(time.Second))).Round(time.Second).String() },
	"ms":       func(f float64) string { return fmt.Sprintf("%.1f ms", f) },
	"dict":     dict,
	"add":      func(a, b int) int { return a + b },
	"termsbar": termsBar,
	"list":     func(s ...string) []string { return s },
	"deref": func(f *float64) float64 {
		if f == nil {
			return 0
		}
		return *f
	},
	"deref64": func(n *int64) int64 {
		if n == nil {
			return 0
		}
		return *n
	},
	"derefi": func(n *int) int {
		if n == nil {
			return 0
		}
		return *n
	},
	"sub":   func(a, b int64) int64 { return a - b },
	"add64": func(a, b int64) int64 { return a + b },
	"div": func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	},
	"sectionsbar": sectionsBar,
}

// clip shortens text to n runes for a one-line listing, with an ellipsis.
func clip(n int, s string) string {
	s = rules.PrintableLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// when is a timestamp as the console shows it: UTC, to the second.
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func whenPtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return when(*t)
}

// ago is the time since t, in its largest unit.
func ago(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := time.Since(t)
	switch {
	case d < 0:
		return "in " + (-d).Round(time.Second).String()
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func agoPtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return ago(*t)
}

// num is an integer with thousands separators.
func num(v any) string {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	default:
		return fmt.Sprint(v)
	}
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func scopeNames(s []auth.Scope) string {
	names := make([]string, len(s))
	for i, sc := range s {
		names[i] = string(sc)
	}
	return strings.Join(names, ", ")
}

// dict builds a map for a partial's arguments: dict "k1" v1 "k2" v2.
func dict(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return m
}
