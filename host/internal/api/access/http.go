package access

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// ErrorBody is the one JSON error shape of every HTTP surface:
//
//	{"error": {"code": "invalid_argument", "field": "text", "message": "text: must not be empty"}}
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is ErrorBody's content.
type ErrorDetail struct {
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	Ref     string `json:"ref,omitempty"` // ties an internal error to the host log
}

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
	_ = json.NewEncoder(w).Encode(ErrorBody{Error: ErrorDetail{Code: p.Code, Field: p.Field, Message: p.Message, Ref: p.Ref}})
}
