package memory

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/tokenize"
)

// TestSameStatementKeepsNearMissesApart: pairs the BM25 embedder scores at or above its fold
// threshold, and the old specifics guard let fold, that state different things.
func TestSameStatementKeepsNearMissesApart(t *testing.T) {
	t.Parallel()
	for name, p := range map[string][2]string{
		// The example: one minute, two speakers, a few shared words.
		"speakers": {"[7:48 pm on 21 May, 2023] Tim: Sounds good! What challenges have you encountered during your pre-season training?",
			"[7:48 pm on 21 May, 2023] John: Fitting into the new team's style of play was a challenge during pre-season."},
		"same words, two speakers":   {"[2024-02-11 07:12] Zoe: Wow, I had no idea!", "[2024-02-11 07:12] Maria: Wow, I had no idea!"},
		"speaker and date in parens": {"Tim (21 May 2023, 7:48 pm): I love hiking.", "John (21 May 2023, 7:48 pm): I love hiking."},
		"question and answer":        {"[session 3] Ana: Did you finish the quilt?", "[session 3] Ana: I finished the quilt for my niece yesterday."},
		"negation":                   {"Use the staging database for load tests.", "Never use the staging database for load tests."},
		"reversal":                   {"Use moment.js for dates.", "Stop using moment.js for dates."},
		"off":                        {"By default dark mode is on.", "By default dark mode is off."},
		"restriction":                {"Admins can delete projects.", "Only admins can delete projects."},
		// Seen folding in the shared round at 1M: one doc sentence of two receivers.
		"one-letter names":               {"MarshalJSON returns m as the JSON encoding of m.", "MarshalJSON returns v as the JSON encoding of v."},
		"swapped order":                  {"Release branches are cut from main, not develop.", "Release branches are cut from develop, not main."},
		"then":                           {"Deploy the backend first, then the frontend.", "Deploy the frontend first, then the backend."},
		"plain-word template":            {"The billing worker retries failed jobs 4 times.", "The scheduler worker retries failed jobs 4 times."},
		"number":                         {"Gateway has a monthly error budget of 5%.", "Gateway has a monthly error budget of 0.5%."},
		"identifier parts are not words": {"The fast-exports flag gates the new exports flow.", "The fast-exports flag gates the new referrals flow."},
		"path":                           {"You can find flushBatch in deploy/helm/values.yaml.", "You can find flushBatch in deploy/helm/values-prod.yaml."},
		"a word repeated":                {"Tests live next to the code they test.", "Fixtures live next to the code they test."},
		"acronym that is a stopword":     {"Customer data is stored in the EU region.", "Customer data is stored in the US region."},
		"out of":                         {"The worker processes jobs in order.", "The worker processes jobs out of order."},
		"two words added":                {"How was your interview with the startup?", "I have a final-round interview at a fintech startup on Thursday."},
		"tag":                            {"Decision: use Postgres for the queue.", "Gotcha: use Postgres for the queue."},
		// Cues that are words themselves ("before", "over") govern what follows them.
		"swapped around before": {"Run migrations before starting the API.", "Start the API before running migrations."},
		"swapped around over":   {"Prefer pnpm over npm.", "Prefer npm over pnpm."},
		"prohibition":           {"Use npm.", "Never use npm."},
		// Rewording swaps only synonyms: another verb relates the same things differently.
		"other verb, reworded":      {"The importer skips rows with invalid emails.", "Rows with invalid emails are reported by the importer."},
		"opposite, reworded":        {"The billing service writes invoices to S3.", "Invoices are read from S3 by the billing service."},
		"other owner, reworded":     {"The platform team owns billing.", "Search is owned by the platform team."},
		"other number, spelled out": {"Keep two replicas of the worker in staging.", "Keep 3 replicas of the worker in staging."},
		"other tool, reworded":      {"Format code with rustfmt before committing.", "Code must be formatted with ruff before each commit."},
	} {
		require.False(t, SameStatement(p[0], p[1]), "%s: %q / %q", name, p[0], p[1])
		require.False(t, SameStatement(p[1], p[0]), "%s (reversed)", name)
	}
}

func TestSameStatementFoldsRestatements(t *testing.T) {
	t.Parallel()
	for name, p := range map[string][2]string{
		"reordered":         {"The API server listens on port 8080.", "Port 8080 is where the API server listens."},
		"light words":       {"We use pnpm, not npm, in this repo.", "This project uses pnpm instead of npm."},
		"negation reworded": {"Never push directly to main.", "Do not push directly to main."},
		"contraction":       {"Don't log access tokens.", "Do not log access tokens."},
		"typo":              {"Workers share a single database connetcion pool.", "Workers share a single database connection pool."},
		"spelling":          {"My favourite running shoes got chewed up.", "My favorite running shoes got chewed up."},
		"refinement":        {"Use pnpm for installs.", "Use pnpm 9 for installs."},
		"one word added":    {"Billing listens on port 8080.", "The billing service listens on port 8080."},
		"filler label":      {"Reminder: the scheduler server binds to port 7070.", "The scheduler server binds to port 7070."},
		"same turn again":   {"[7:48 pm on 21 May, 2023] John: I pulled a hamstring in the second week of training!", "[7:48 pm on 21 May, 2023] John: I pulled a hamstring in the second week of training."},
		"head formatting":   {"[`2023-04-10` 02:39] Felix: I love hiking.", "[2023-04-10 02:39] Felix: I love hiking."},
		"pronoun contraction": {"[session 4] Grace: I'm nervous about the coding interview.",
			"[session 4] Grace: I am nervous about the coding interview."},
		"synonym":                 {"Vault holds our secrets.", "Vault keeps our secrets."},
		"synonyms, reordered":     {"Search belongs to the platform team.", "Search is owned by the platform team."},
		"irregular participle":    {"Vite builds the frontend.", "The frontend is built with Vite."},
		"quantifier and synonym":  {"Every table has created_at and updated_at columns.", "Each table includes created_at and updated_at columns."},
		"compound written apart":  {"Requests to billing time out after 5 seconds.", "The billing request timeout is 5 seconds."},
		"prohibition, never":      {"Never use npm.", "Do not use npm."},
		"prohibition reworded":    {"The catalog test suite must not use mocha.", "Do not write catalog tests with mocha."},
		"no need to":              {"There is no need to run make lint before you push, CI does it.", "Do not run make lint before pushing; CI runs it."},
		"lead-in read as a tag":   {"Keep in mind: the scheduler retries failed jobs.", "The scheduler retries failed jobs."},
		"lead-in before a tag":    {"Remember that gotcha: the cache is cold after a deploy.", "Gotcha: the cache is cold after a deploy."},
		"identifier lower-cased":  {"JSEscaper returns the escaped value.", "Note: jSEscaper returns the escaped value."},
		"number spelled out":      {"Keep two replicas of the worker in staging.", "Keep 2 replicas of the worker in staging."},
		"same turn, synonym verb": {"[session 4] Grace: I made two raised beds from old pallets.", "[session 4] Grace: From old pallets I built two raised beds."},
	} {
		require.True(t, SameStatement(p[0], p[1]), "%s: %q / %q", name, p[0], p[1])
		require.True(t, SameStatement(p[1], p[0]), "%s (reversed)", name)
	}
}

func TestSplitHead(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][2]string{
		"[7:48 pm on 21 May, 2023] Tim: Sounds good!":   {"7 48 pm on 21 may 2023 tim", "Sounds good!"},
		"Tim (21 May 2023, 7:48 pm): Sounds good!":      {"tim 21 may 2023 7 48 pm", "Sounds good!"},
		"[2024-03-02] Use pnpm.":                        {"2024 03 02", "Use pnpm."},
		"Decision: use pnpm.":                           {"decision", "use pnpm."},
		"Keep in mind: use pnpm.":                       {"", "use pnpm."},
		"Remember that gotcha: use pnpm.":               {"gotcha", "use pnpm."},
		"Note: gotcha: use pnpm.":                       {"gotcha", "use pnpm."},
		"FYI: use pnpm.":                                {"", "use pnpm."},
		"Use pnpm.":                                     {"", "Use pnpm."},
		"See http://example.test: it explains":          {"", "See http://example.test: it explains"},
		"main is a protected branch: open a PR instead": {"", "main is a protected branch: open a PR instead"},
		"Run it at 12:30 daily":                         {"", "Run it at 12:30 daily"},
		"(see the ADR for why we chose this) Use pnpm.": {"", "(see the ADR for why we chose this) Use pnpm."},
	} {
		head, body := splitHead(text)
		require.Equal(t, want, [2]string{head, body}, text)
	}
}

func TestTypoOf(t *testing.T) {
	t.Parallel()
	for _, p := range [][2]string{{"migrations", "migraitons"}, {"colour", "color"}, {"kilometres", "kilometers"}, {"unpacked", "unpakced"}} {
		require.True(t, typoOf(p[0], p[1]), "%v", p)
	}
	for _, p := range [][2]string{{"dev", "dep"}, {"v1.2", "v1.3"}, {"staging", "sandbox"}, {"hourly", "daily"}, {"reads", "write"}} {
		require.False(t, typoOf(p[0], p[1]), "%v", p)
	}
}

func TestSynonymsAreNeverOpposites(t *testing.T) {
	t.Parallel()
	for _, p := range [][2]string{{"read", "write"}, {"send", "receive"}, {"start", "stop"}, {"allow", "reject"},
		{"increase", "decrease"}, {"own", "use"}, {"skip", "report"}, {"store", "send"}} {
		require.False(t, synonyms(tokenize.Terms(p[0])[0], tokenize.Terms(p[1])[0]), "%v", p)
	}
}

func BenchmarkSameStatement(b *testing.B) {
	a := "[7:48 pm on 21 May, 2023] Tim: Sounds good! What challenges have you encountered during your pre-season training?"
	c := "[7:48 pm on 21 May, 2023] Tim: Sounds good! Which challenges have you run into during pre-season training?"
	b.ReportAllocs()
	for b.Loop() {
		SameStatement(a, c)
	}
}
