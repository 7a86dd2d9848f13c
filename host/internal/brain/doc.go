// Package brain owns the project brain: everything an agent needs at the start of a session
// besides the facts themselves, and the human workflow around it.
//
//   - Project documents: each project's goal and plan, rows of the memories table with the
//     layer kinds goal and plan, embedded and versioned like facts (Goal, Plan, SetDocument).
//   - Proposals: agents never change a document; they propose, and a human approves (the
//     document is replaced, the old version stays in history) or rejects. A proposal made
//     against a version that has changed since is stale and never applied (Propose, Inbox,
//     Approve, Reject).
//   - The journal: what each session did, embedded on append (AppendJournal, Journal).
//   - Cross-layer search: facts, journal, goal and plan searched in parallel through
//     memory.Service's one retrieval path and ranker, merged, each hit labelled with its layer
//     (Search).
//   - Project maps: uploaded by the machine that can see the project, or built here when the
//     host can (PutMap, Map); package projectmap computes them.
//   - The spawn banner: one project's goal, plan, map summary, ranked facts, newest facts and
//     journal, read in one round trip and rendered by package banner (Banner); when the
//     session's task is known, led by the facts the one ranker finds relevant to it over a
//     score floor, or the whole project when it fits (task.go); and each prompt's relevant
//     facts for the CLIs' prompt hooks (PromptContext).
//   - Session records: what each session was given, retrieved, stored and cited, what finding
//     each stored fact cost, and the value figures and access logs read from them (Record,
//     EndSession, Sessions, Session, MemoryAccess, Value; docs/value.md). Ids and counts only.
//     A session's reference and its end report are the REST contract's types (wire.SessionRef,
//     wire.SessionEnd), one definition for the client that sends them and the brain.
//   - The health snapshot (Health) and the import of the agent CLIs' file memory: read where
//     the CLIs keep it (ReadCLIFiles, on the CLI's machine), stored by the host (ImportCLI).
//
// It ranks through package rank (via memory.Service) and never with a formula of its own, and
// it reads and writes one project per call: nothing of project A reaches project B.
package brain
