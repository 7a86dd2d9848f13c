package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
)

// decisionInbox is a project's inbox of what waits for the operator's decision (agents'
// proposals, the conflicts job's findings): the inbox command and its `list` list the items
// by --status, newest first, and `show ID` shows one. The commands that decide are added to
// what command returns.
type decisionInbox[Page, Item any] struct {
	use, short string // the inbox command's
	items      string // what it holds, plural ("proposals")
	statuses   string // --status's help
	list       func(b brainOps, ctx context.Context, status string) (Page, error)
	printList  func(out io.Writer, page Page, status string, full bool)
	showShort  string
	get        func(b brainOps, ctx context.Context, ref string) (Item, error)
	printItem  func(out io.Writer, item Item)
}

func (in decisionInbox[Page, Item]) command() *cobra.Command {
	list := func(cmd *cobra.Command, b brainOps, _ string, _ []string) error {
		status, _ := cmd.Flags().GetString("status")
		page, err := in.list(b, cmd.Context(), status)
		if err != nil {
			return err
		}
		full, _ := cmd.Flags().GetBool("full")
		in.printList(cmd.OutOrStdout(), page, status, full)
		return nil
	}
	c := brainCmd(in.use, in.short, cobra.NoArgs, list)
	ls := brainCmd("list", "List "+in.items+", newest first", cobra.NoArgs, list)
	for _, cmd := range []*cobra.Command{c, ls} {
		cmd.Flags().String("status", "", in.statuses)
		cmd.Flags().Bool("full", false, "show whole ids instead of short ones")
	}
	c.AddCommand(ls)
	c.AddCommand(brainCmd("show ID", in.showShort, cobra.ExactArgs(1),
		func(cmd *cobra.Command, b brainOps, _ string, args []string) error {
			item, err := in.get(b, cmd.Context(), args[0])
			if err != nil {
				return err
			}
			in.printItem(cmd.OutOrStdout(), item)
			return nil
		}))
	return c
}
