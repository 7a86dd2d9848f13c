package restapi

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/memhost/memhost/host/internal/auth"
	"github.com/memhost/memhost/host/internal/memory"
)

// errorBody is the one JSON error shape of the API.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// rateLimited is a refused write with the time after which a retry can succeed.
type rateLimited struct{ after time.Duration }

func (e rateLimited) Error() string {
	return fmt.Sprintf("rate limit: too many writes for this token; retry after %ds", retrySeconds(e.after))
}

func retrySeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// fail writes err as an API error. Unexpected errors are logged in full and reported
// generically, so SQL and internals never reach a client.
func fail(c *gin.Context, log *slog.Logger, err error) {
	status, detail := classify(err)
	if status == http.StatusInternalServerError {
		log.Error("request failed", "method", c.Request.Method, "path", c.FullPath(), "err", err)
	}
	var rl rateLimited
	if errors.As(err, &rl) {
		c.Header("Retry-After", strconv.Itoa(retrySeconds(rl.after)))
	}
	if status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", `Bearer realm="memhost"`)
	}
	c.AbortWithStatusJSON(status, errorBody{Error: detail})
}

func classify(err error) (int, errorDetail) {
	var fe *memory.FieldError
	var rl rateLimited
	switch {
	case errors.As(err, &fe):
		return http.StatusBadRequest, errorDetail{Code: "invalid_argument", Field: fe.Field, Message: fe.Error()}
	case errors.As(err, &rl):
		return http.StatusTooManyRequests, errorDetail{Code: "rate_limited", Message: rl.Error()}
	case errors.Is(err, auth.ErrUnauthenticated):
		return http.StatusUnauthorized, errorDetail{Code: "unauthenticated", Message: err.Error()}
	case errors.Is(err, auth.ErrForbidden), errors.Is(err, memory.ErrForbidden):
		return http.StatusForbidden, errorDetail{Code: "forbidden", Message: err.Error()}
	case errors.Is(err, memory.ErrNotFound):
		return http.StatusNotFound, errorDetail{Code: "not_found", Message: err.Error()}
	case errors.Is(err, memory.ErrConflict):
		return http.StatusConflict, errorDetail{Code: "conflict", Message: err.Error()}
	case errors.Is(err, memory.ErrUnavailable):
		return http.StatusServiceUnavailable, errorDetail{Code: "unavailable", Message: err.Error()}
	}
	return http.StatusInternalServerError, errorDetail{Code: "internal", Message: "internal error; see the host log"}
}
