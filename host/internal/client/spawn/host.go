package spawn

import "github.com/memhost/memhost/host/internal/client/hostclient"

// Host is the running host as memhost run reaches it: the client side's one client of the
// host, for the banner, the journal and the MCP endpoint the CLI is given.
type Host = hostclient.Client

// JournalEntry is one session's record in the project journal.
type JournalEntry = hostclient.JournalEntry

// ErrRefused means the host refused the token (401): expired, revoked, or unknown to it.
var ErrRefused = hostclient.ErrRefused
