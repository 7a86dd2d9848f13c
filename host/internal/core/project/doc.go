// Package project owns project identity: turning a working directory into the stable key that
// scopes project memories.
//
// The key must be the same for every clone and worktree of a repository on every machine, so
// that "we use pnpm here" learned in one checkout is known in the next. The normalised origin
// remote gives that; a local path is the fallback when there is no remote to share. Git's
// config is parsed here rather than by running git, so resolution works where git is absent
// and costs no process spawn on the request path.
package project
