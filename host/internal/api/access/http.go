package access

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/memhost/memhost/host/internal/wire"
)

// WriteHTTP answers an HTTP request with p: its status, the JSON error body, Retry-After when
// a retry can succeed, and WWW-Authenticate on 401.
func (p Problem) WriteHTTP(w http.ResponseWriter) {
	h := w.Header()
	if p.Status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="memhost"`)
	}
	if p.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(RetrySeconds(p.RetryAfter)))
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(wire.ErrorBody{Error: wire.ErrorDetail{Code: p.Code, Field: p.Field, Message: p.Message, Ref: p.Ref}})
}
