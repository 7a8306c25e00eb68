package option

import (
	"fmt"
	"strings"
)

// Markdown returns a reference table of opts, their keys written with
// prefix: key, required, default, type and description, with deprecated
// keys, fallback keys and sensitivity noted. With no options it says so.
func Markdown(prefix string, opts []Option) string {
	var b strings.Builder
	if len(opts) == 0 {
		b.WriteString("No options.\n")
		return b.String()
	}
	b.WriteString("| Option | Required | Default | Type | Description |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, o := range opts {
		s := o.decl()
		key := "`" + prefix + s.key + "`"
		if s.prefix {
			key = "`" + prefix + s.key + "*`"
		}
		req := "optional"
		if s.required {
			req = "required"
		}
		def := "(none)"
		if s.hasDefault {
			def = "`" + s.defText + "`"
		}
		typ := s.typ.String()
		if s.typ == TypeEnum {
			typ = "Enum: `" + strings.Join(s.enum, "`, `") + "`"
		}
		if s.prefix {
			typ = "pass-through"
		}
		desc := s.description
		var notes []string
		for _, d := range s.deprecated {
			notes = append(notes, "Deprecated key: `"+prefix+d.Key+"`.")
		}
		for _, fb := range s.fallback {
			notes = append(notes, "Falls back to `"+prefix+fb+"`.")
		}
		if s.sensitive {
			notes = append(notes, "Sensitive: masked in errors and listings.")
		}
		if len(notes) > 0 {
			desc = strings.TrimSpace(desc + " " + strings.Join(notes, " "))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", key, req, def, typ, EscapeCell(desc))
	}
	return b.String()
}

// RulesMarkdown returns rules as a list headed "Rules:", or "" for none.
func RulesMarkdown(rules []Rule) string {
	if len(rules) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nRules:\n\n")
	for _, r := range rules {
		b.WriteString("- " + r.String() + "\n")
	}
	return b.String()
}

// EscapeCell makes s safe in a Markdown table cell.
func EscapeCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}
