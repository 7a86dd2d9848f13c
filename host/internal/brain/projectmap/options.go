package projectmap

import (
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"
)

// Defaults for Options' zero values.
const (
	DefaultMaxFiles       = 200_000
	DefaultTimeout        = 5 * time.Second
	DefaultGitTimeout     = 2 * time.Second
	DefaultActivityWindow = 7 * 24 * time.Hour
	DefaultTopLanguages   = 10
)

// Options bound and tune Build. The zero value is the documented defaults.
type Options struct {
	// MaxFiles stops the listing after this many files, counting those git lists inside
	// vendored trees (a walk never enters them); the map is then marked TruncatedFiles.
	MaxFiles int
	// Timeout bounds the whole Build. The listing may use 60% of it and is then marked
	// TruncatedTime; manifests and git share the rest.
	Timeout time.Duration
	// GitTimeout bounds each git call (within Timeout).
	GitTimeout time.Duration
	// Git is the git binary; empty means "git" from PATH. Without a usable git the map has
	// no git section and the listing walks the tree.
	Git string
	// ActivityWindow is how far back Git.Recent looks.
	ActivityWindow time.Duration
	// TopLanguages is how many languages the map keeps (at most MaxLanguages).
	TopLanguages int
	// Now is the clock; GeneratedAt and the activity window are read from it, so a fixed
	// clock makes Build deterministic.
	Now func() time.Time
}

// withDefaults checks the options and fills in zero values.
func (o Options) withDefaults() (Options, error) {
	for _, f := range []struct {
		name string
		val  int64
	}{
		{"MaxFiles", int64(o.MaxFiles)}, {"Timeout", int64(o.Timeout)}, {"GitTimeout", int64(o.GitTimeout)},
		{"ActivityWindow", int64(o.ActivityWindow)}, {"TopLanguages", int64(o.TopLanguages)},
	} {
		if f.val < 0 {
			return o, rules.Errf(f.name, "must not be negative (0 means the default)")
		}
	}
	if o.TopLanguages > MaxLanguages {
		return o, rules.Errf("TopLanguages", "is %d; the limit is %d", o.TopLanguages, MaxLanguages)
	}
	if o.MaxFiles == 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.GitTimeout == 0 {
		o.GitTimeout = DefaultGitTimeout
	}
	if o.Git == "" {
		o.Git = "git"
	}
	if o.ActivityWindow == 0 {
		o.ActivityWindow = DefaultActivityWindow
	}
	if o.TopLanguages == 0 {
		o.TopLanguages = DefaultTopLanguages
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}
