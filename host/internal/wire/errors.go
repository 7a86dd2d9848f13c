package wire

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
