package console

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"html/template"
	"io/fs"
	"net/url"
	"sync"
)

//go:embed assets/*
var assetFS embed.FS

// asset is one embedded file.
type asset struct {
	data []byte
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
			assets[e.Name()] = asset{data: data}
		}
	})
	return assets
}

// The pages carry their stylesheet, script and icon inline: a cold browser's first page is one
// request, not four (measured: the fetches of the CSS and the script were most of a cold first
// page's time on loopback). The content security policy allows exactly these two blocks by
// their hashes, and still no other inline code.
var (
	inlineStyle  = template.CSS(loadAssets()["console.css"].data)
	inlineScript = template.JS(loadAssets()["console.js"].data)
	// inlineIcon is the favicon as a data: URL.
	inlineIcon = template.URL("data:image/svg+xml," + url.PathEscape(string(loadAssets()["icon.svg"].data)))
	// contentSecurityPolicy allows the inline stylesheet and script by their sha256, nothing
	// else inline, and nothing from anywhere but the console.
	contentSecurityPolicy = "default-src 'none'; script-src 'self' " + hashSource("console.js") + "; style-src 'self' " + hashSource("console.css") +
		"; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)

// hashSource is a CSP source for an inline block holding the asset's content.
func hashSource(name string) string {
	sum := sha256.Sum256(loadAssets()[name].data)
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
