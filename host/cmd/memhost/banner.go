package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/brain"
)

func bannerCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "banner [--cli NAME] [--budget N] [--project KEY]",
		Short: "Print the project's spawn banner: goal, plan, map, top and newest facts, recent journal, within a token budget",
		Long: `Print the banner an agent CLI reads when a session starts (docs/banner.md): from a running
host when a token is given (--token or MEMHOST_TOKEN), else from the database directly.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			key, err := projectKey(cmd, "")
			if err != nil {
				return err
			}
			cli, _ := cmd.Flags().GetString("cli")
			budget, _ := cmd.Flags().GetInt("budget")
			text, err := fetchBanner(cmd, key, brain.BannerRequest{CLI: cli, Budget: budget})
			if err != nil {
				return userError(err)
			}
			fmt.Fprint(cmd.OutOrStdout(), text)
			return nil
		},
	}
	c.Flags().String("cli", "", "the CLI that reads it: claude, codex or gemini (tool names are written as it shows them)")
	c.Flags().Int("budget", 0, "most tokens the banner may take (default: the host's, 2000 unless configured)")
	addProjectFlag(c)
	addTokenFlag(c)
	return c
}

// fetchBanner renders project key's banner through a running host when one answers to the
// token, else on the database.
func fetchBanner(cmd *cobra.Command, key string, req brain.BannerRequest) (string, error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return "", err
	}
	if h := hostFor(cmd, cfg); h != nil {
		q := url.Values{"format": {"text"}}
		if req.CLI != "" {
			q.Set("cli", req.CLI)
		}
		if req.Budget != 0 {
			q.Set("budget", strconv.Itoa(req.Budget))
		}
		var text bytes.Buffer
		err := h.do(cmd.Context(), "GET", projectPath(key, "banner")+"?"+q.Encode(), nil, &text)
		if !errors.Is(err, errNoHost) {
			return text.String(), err
		}
	}
	b, closeFn, err := openBrain(cmd)
	if err != nil {
		return "", err
	}
	defer closeFn()
	v, err := b.Banner(cmd.Context(), operator(key), req)
	return v.Text, err
}
