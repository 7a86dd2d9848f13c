package spawn

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/memhost/memhost/sdk/provider"
)

// keptRulesFormat versions the file's layout: a file of another layout is not read.
const keptRulesFormat = 1

// keptRules is the task rules a provider binary declared (provider.Info.Task), kept in the
// user's cache so that the next run reads the task while the plugin starts. The binary's
// path, size and modification time key it: a binary changed since is never read with them.
type keptRules struct {
	Format  int                `json:"format"`
	Path    string             `json:"path"`
	Size    int64              `json:"size"`
	ModTime int64              `json:"mod_time_ns"`
	Rules   provider.TaskRules `json:"rules"`
}

// rulesCache keeps task rules in dir, a file per provider binary; "" keeps none.
type rulesCache string

// binaryStat is the provider binary as a run found it before starting its plugin: the key
// of the rules it declares. The zero value is a binary that could not be read, which keeps
// nothing.
type binaryStat struct {
	path    string
	size    int64
	modTime int64
}

// statBinary reads the binary's key; the zero binaryStat when it cannot be read.
func statBinary(path string) binaryStat {
	fi, err := os.Stat(path)
	if err != nil {
		return binaryStat{}
	}
	return binaryStat{path: path, size: fi.Size(), modTime: fi.ModTime().UnixNano()}
}

// load returns the rules kept for the binary as b found it, or nil.
func (c rulesCache) load(b binaryStat) *provider.TaskRules {
	if c == "" || b.path == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(string(c), cacheName(b.path)))
	var k keptRules
	if err != nil || json.Unmarshal(data, &k) != nil {
		return nil
	}
	if k.Format != keptRulesFormat || k.Path != b.path || k.Size != b.size || k.ModTime != b.modTime || k.Rules.Validate() != nil {
		return nil
	}
	return &k.Rules
}

// keep records the rules the binary declared, keyed by b, taken before its plugin started: a
// binary replaced meanwhile has another key, and its next run reads it afresh. nil forgets
// what was kept. A cache that cannot be written only costs the next run the plugin's start.
func (c rulesCache) keep(b binaryStat, rules *provider.TaskRules) {
	if c == "" || b.path == "" {
		return
	}
	if rules == nil {
		_ = os.Remove(filepath.Join(string(c), cacheName(b.path)))
		return
	}
	data, err := json.Marshal(keptRules{Format: keptRulesFormat, Path: b.path, Size: b.size, ModTime: b.modTime, Rules: *rules})
	if err == nil {
		_ = writePrivate(string(c), cacheName(b.path), data)
	}
}
