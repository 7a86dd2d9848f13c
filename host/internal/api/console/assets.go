package console

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sync"
)

//go:embed assets/*
var assetFS embed.FS

// asset is one embedded file and its content's hash, its ETag and cache key.
type asset struct {
	data []byte
	etag string
	mime string
}

var (
	assetsOnce sync.Once
	assets     map[string]asset
)

// loadAssets reads the embedded files once.
func loadAssets() map[string]asset {
	assetsOnce.Do(func() {
		assets = map[string]asset{}
		entries, _ := fs.ReadDir(assetFS, "assets")
		for _, e := range entries {
			data, err := assetFS.ReadFile("assets/" + e.Name())
			if err != nil {
				continue
			}
			sum := sha256.Sum256(data)
			assets[e.Name()] = asset{data: data, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, mime: mime.TypeByExtension(path.Ext(e.Name()))}
		}
	})
	return assets
}

// assetVersion is a file's content hash, which the pages put in its URL (?v=) so a browser
// may keep it for a year and still never run a stale script after an upgrade.
func assetVersion(name string) string {
	a, ok := loadAssets()[name]
	if !ok {
		return ""
	}
	return a.etag[1:9]
}

// serveAsset serves an embedded file: nothing is fetched from anywhere at run time.
func serveAsset(w http.ResponseWriter, r *http.Request) {
	a, ok := loadAssets()[r.PathValue("file")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.mime)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	if r.Header.Get("If-None-Match") == a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(a.data)
}
