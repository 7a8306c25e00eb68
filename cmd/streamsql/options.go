package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/streamsql/streamsql/factory"
)

// optionsCommand is `streamsql options [NAME]`: the connectors and formats,
// or every option of one of them, from their declarations (the text of
// docs/configuration.md). An error about an unknown option names a few
// near ones and points here for the rest.
func optionsCommand(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "options [CONNECTOR|FORMAT]",
		Short: "List the connectors and formats, or every option of one",
		Long: `Without an argument, list the connectors and formats a job file may name in
'connector' and 'format'. With one, print every option of that connector or
format: key, whether it is required, default, type and meaning, and the rules
between options (the same text as docs/configuration.md).`,
		Example: `  streamsql options
  streamsql options kafka
  streamsql options json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg := e.reg
			if reg == nil {
				reg = factory.Default
			}
			if len(args) == 0 {
				fmt.Fprint(e.stdout, factoryList(reg))
				fmt.Fprintln(e.stdout, "\nstreamsql options NAME prints the options of one of them.")
				return nil
			}
			if f, ok := reg.Connector(args[0]); ok {
				fmt.Fprint(e.stdout, factory.ConnectorMarkdown(f))
				return nil
			}
			if f, ok := reg.Format(args[0]); ok {
				fmt.Fprint(e.stdout, factory.FormatMarkdown(f))
				return nil
			}
			return fmt.Errorf("no connector or format %q; connectors: %s; formats: %s", args[0],
				strings.Join(reg.Connectors(), ", "), strings.Join(reg.Formats(), ", "))
		},
	}
}

// factoryList lists the connectors and formats of reg with the first
// sentence of their descriptions.
func factoryList(reg *factory.Registry) string {
	var b strings.Builder
	b.WriteString("Connectors ('connector' = ...):\n")
	for _, id := range reg.Connectors() {
		f, _ := reg.Connector(id)
		fmt.Fprintf(&b, "  %-15s %s\n", id, firstSentence(f.Description))
	}
	b.WriteString("Formats ('format' = ...):\n")
	for _, id := range reg.Formats() {
		f, _ := reg.Format(id)
		fmt.Fprintf(&b, "  %-15s %s\n", id, firstSentence(f.Description))
	}
	return b.String()
}

// firstSentence returns s up to its first ". ", or all of it.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
