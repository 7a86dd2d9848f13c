package openaihttp

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Secret is a credential that does not print.
type Secret string

// String returns a placeholder, never the secret.
func (Secret) String() string { return "[redacted]" }

// GoString returns a placeholder, never the secret.
func (Secret) GoString() string { return "[redacted]" }

// Redact replaces the secret in s, which may be text a runtime echoed back.
func (k Secret) Redact(s string) string {
	if k == "" {
		return s
	}
	return strings.ReplaceAll(s, string(k), "[redacted]")
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// KeyFromEnv reads the API key from the variable keyEnv names; keyEnvVar is
// the setting that named it (e.g. MEMHOST_WORKER_API_KEY_ENV), for errors.
// An empty keyEnv means no key. Errors name variables, never the key.
func KeyFromEnv(getenv func(string) string, keyEnvVar, keyEnv string) (Secret, error) {
	if keyEnv == "" {
		return "", nil
	}
	if !envNameRE.MatchString(keyEnv) {
		return "", fmt.Errorf("%s %q: must name an environment variable (letters, digits and '_')", keyEnvVar, keyEnv)
	}
	key := Secret(getenv(keyEnv))
	if key == "" {
		return "", fmt.Errorf("%s names %s, which is not set or empty", keyEnvVar, keyEnv)
	}
	return key, nil
}

// ParseBaseURL accepts an absolute http(s) URL without credentials in it: a
// key belongs in the variable keyEnvVar names, where it is not logged. A port,
// when the URL has one, is 1..65535: "host:" with nothing after the colon is
// refused rather than read as the scheme's default. It is the one check of an
// API root, for the plugins and for the host's `memhost config check`.
func ParseBaseURL(s, keyEnvVar string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, errors.New("is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("scheme %q: must be http or https", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return nil, errors.New("has no host")
	case u.User != nil:
		return nil, fmt.Errorf("must not carry credentials; put the key in a variable named by %s", keyEnvVar)
	case strings.HasSuffix(u.Host, ":"):
		return nil, errors.New("has an empty port: write host:port (e.g. 127.0.0.1:11434) or leave the colon out")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("port %s: must be 1..65535", p)
		}
	}
	return u, nil
}

// IsLoopback reports whether the base URL's host is this machine.
func IsLoopback(base, keyEnvVar string) (bool, error) {
	u, err := ParseBaseURL(base, keyEnvVar)
	if err != nil {
		return false, err
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// NewClient returns a go-openai client for the API root base (e.g.
// http://127.0.0.1:11434/v1), sending key as a bearer token when set. A nil
// hc means a client of its own.
func NewClient(base string, key Secret, hc *http.Client) *openai.Client {
	oc := openai.DefaultConfig(string(key))
	oc.BaseURL = strings.TrimRight(base, "/")
	if hc == nil {
		hc = &http.Client{}
	}
	oc.HTTPClient = hc
	return openai.NewClientWithConfig(oc)
}
