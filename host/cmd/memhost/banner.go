package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/brain"
)

func bannerCmd() *cobra.Command {
	c := brainCmd("banner [--cli NAME] [--budget N] [--project KEY]",
		"Print the project's spawn banner: goal, plan, map, top and newest facts, recent journal, within a token budget", cobra.NoArgs,
		func(cmd *cobra.Command, b brainOps, _ string, _ []string) error {
			cli, _ := cmd.Flags().GetString("cli")
			budget, _ := cmd.Flags().GetInt("budget")
			text, err := b.Banner(cmd.Context(), brain.BannerRequest{CLI: cli, Budget: budget})
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), text)
			return nil
		})
	c.Long = `Print the banner an agent CLI reads when a session starts (docs/banner.md), from the running
host; when no host answers, from the database directly.`
	c.Flags().String("cli", "", "the CLI that reads it: claude, codex or gemini (tool names are written as it shows them)")
	c.Flags().Int("budget", 0, "most tokens the banner may take (default: the host's, 2000 unless configured)")
	return c
}
