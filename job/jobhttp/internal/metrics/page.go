package metrics

import (
	"embed"
	"net/http"
)

// page holds the status page: index.html and the script it loads.
//
//go:embed page/index.html page/page.js
var page embed.FS

// servePage serves the status page at / and its script at /page.js. The
// page loads nothing from elsewhere; the Content-Security-Policy keeps it
// that way.
func servePage(w http.ResponseWriter, r *http.Request) {
	name, typ := "page/index.html", "text/html; charset=utf-8"
	if r.URL.Path == "/page.js" {
		name, typ = "page/page.js", "text/javascript; charset=utf-8"
	}
	body, err := page.ReadFile(name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", typ)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	_, _ = w.Write(body)
}
