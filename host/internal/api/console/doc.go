// Package console owns memhost's operator console: the web pages the host serves under
// /console/ (memories with each score taken apart into the ranker's own terms, a memory's
// history, links and access log, the project's goal, plan, inboxes, archive, journal, map and
// banner preview, the sessions the host recorded with the project's value figures, health and
// plots), the live feed of writes over server-sent events, and the browser sign-in that opens
// a console session.
//
// It is one more adapter of the front door (package access), as REST and MCP are: a browser
// session acts as the token it was opened for (access.Door.AuthenticateSession), projects are
// resolved by access.Resolve, errors are mapped by access.Classify, and every read and change
// goes through the services REST uses (memory.Service, brain.Service, maintenance, workers,
// status), with the same scopes: a read-only token sees and cannot change, a token bound to a
// project sees and changes that project alone, the host-wide pages need an admin token bound to
// none. Every number shown is one the host computed; the browser computes nothing.
//
// Pages are server-rendered html/template with embedded assets (go:embed: no CDN, no fetch at
// run time, no build step). Every form works without JavaScript; a small script adds the live
// feed (EventSource), bulk selection and confirmations. Writes are safe against cross-site
// forgery three times over: a SameSite=Strict cookie, a cross-origin check (Sec-Fetch-Site and
// Origin, http.CrossOriginProtection) and a per-session token in every form. docs/console.md
// says why this stack and shows each screen.
package console
