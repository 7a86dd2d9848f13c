package projectmap_test

import (
	"fmt"
	"time"

	"github.com/memhost/memhost/host/internal/brain/projectmap"
)

// A map renders to the compact text the spawn banner embeds; a smaller budget keeps the
// most useful lines and says how many it left out.
func ExampleMap_Summary() {
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	m := projectmap.Map{
		Format: projectmap.FormatVersion, GeneratedAt: at, Files: 412,
		Description: "Order service for the shop.",
		Languages:   []projectmap.Language{{Name: "Go", Files: 300}, {Name: "TypeScript", Files: 100}},
		Tools: []projectmap.Tool{
			{Name: "Gin", Kind: projectmap.KindFramework, Source: "go.mod"},
			{Name: "pnpm", Kind: projectmap.KindPackageManager, Source: "web/pnpm-lock.yaml"},
			{Name: "Make", Kind: projectmap.KindBuild, Source: "Makefile"},
		},
		Commands: []projectmap.Command{
			{Kind: projectmap.CmdTest, Run: "make test", Description: "Unit tests against a local Postgres.", Source: "Makefile"},
			{Kind: projectmap.CmdBuild, Run: "go build ./...", Source: "go.mod"},
			{Kind: projectmap.CmdTest, Run: "pnpm test", Dir: "web", Source: "web/package.json"},
			{Kind: projectmap.CmdRun, Run: "pnpm run dev", Dir: "web", Source: "web/package.json"},
		},
		Dirs: []projectmap.Dir{
			{Path: "cmd", Files: 3},
			{Path: "internal", Files: 290},
			{Path: "web", Files: 119, Description: "Storefront UI"},
		},
		Modules: []projectmap.Module{
			{Ecosystem: "go", Name: "example.com/shop", Files: 412},
			{Dir: "web", Ecosystem: "node", Name: "web", Description: "Storefront UI", Files: 119},
		},
		KeyFiles:    []string{"Makefile", "README.md", "go.mod"},
		EntryPoints: []string{"cmd/shop/main.go", "web/src/main.ts"},
		Git: &projectmap.Git{
			Branch: "main", Head: &projectmap.Commit{Hash: "4f2a9c1", Subject: "Retry payment webhooks", Time: at.Add(-time.Hour)},
			Recent: projectmap.Activity{
				Since: at.Add(-projectmap.DefaultActivityWindow), Commits: 12,
				Latest:   []projectmap.Commit{{Hash: "4f2a9c1", Subject: "Retry payment webhooks"}, {Hash: "9b0e113", Subject: "Split the order handler"}},
				HotFiles: []projectmap.HotFile{{Path: "internal/orders/handler.go", Commits: 5}},
			},
		},
	}
	fmt.Println(m.Summary(4096))
	fmt.Println("---")
	fmt.Println(m.Summary(420))
	// Output:
	// Project map (412 files, generated 2026-03-10 12:00 UTC):
	// About: Order service for the shop.
	// Languages: Go 75%, TypeScript 25%
	// Frameworks: Gin
	// Tooling: pnpm, Make
	// Commands (run at the root unless a directory is given):
	// - make test — Unit tests against a local Postgres.
	// - go build ./...
	// - in web: pnpm test · pnpm run dev
	// Layout:
	// - ./ (go module example.com/shop)
	// - cmd/ (3 files)
	// - internal/ (290 files)
	// - web/ (119 files; node module web): Storefront UI
	// Entry points: cmd/shop/main.go, web/src/main.ts
	// Key files: Makefile, README.md, go.mod
	// Git: branch main at 4f2a9c1 "Retry payment webhooks" (2026-03-10)
	// Since 2026-03-03: 12 commits. Latest:
	// - 4f2a9c1 Retry payment webhooks
	// - 9b0e113 Split the order handler
	// Hot files (commits): internal/orders/handler.go (5)
	// ---
	// Project map (412 files, generated 2026-03-10 12:00 UTC):
	// About: Order service for the shop.
	// Languages: Go 75%, TypeScript 25%
	// Frameworks: Gin
	// Tooling: pnpm, Make
	// Commands (run at the root unless a directory is given):
	// - make test — Unit tests against a local Postgres.
	// - go build ./...
	// Git: branch main at 4f2a9c1 "Retry payment webhooks" (2026-03-10)
	// (map shortened: 11 more lines in the full project map)
}
