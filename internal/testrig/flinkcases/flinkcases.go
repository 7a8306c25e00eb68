// Package flinkcases reads the cases of job/testdata/flink-queries, the
// queries whose changelogs tools/flink-query-gen computes with Flink
// itself, the way that generator reads them: a line
//
//	-- include: FILE [KEY=VALUE ...]
//
// is replaced by the text of FILE (a path relative to the case's folder),
// with each ${KEY} in it replaced by VALUE. Tables and views many cases
// share (the Nexmark DDL) live once in such a file, while each case still
// says which file and which values it reads. Other ${...} are left for the
// job's variables (${DATA}). An included file includes nothing itself.
//
// Both the generator and the tests cut a case into statements at every
// ';', comments included, so a comment line holding one is an error.
package flinkcases

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Directive starts a line that includes a file.
const Directive = "-- include:"

// Read returns the text of the case file at path with its include lines
// expanded.
func Read(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return Expand(filepath.Dir(path), string(b))
}

// Expand expands the include lines of a case's text; included files are
// read relative to dir.
func Expand(dir, text string) (string, error) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), Directive)
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return "", fmt.Errorf("line %d: %q names no file", i+1, l)
		}
		inc, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(fields[0])))
		if err != nil {
			return "", fmt.Errorf("line %d: %w", i+1, err)
		}
		body := string(inc)
		for _, kv := range fields[1:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return "", fmt.Errorf("line %d: %q is not KEY=VALUE", i+1, kv)
			}
			if !strings.Contains(body, "${"+k+"}") {
				return "", fmt.Errorf("line %d: %s does not use ${%s}", i+1, fields[0], k)
			}
			body = strings.ReplaceAll(body, "${"+k+"}", v)
		}
		if strings.Contains(body, Directive) {
			return "", fmt.Errorf("line %d: %s includes another file", i+1, fields[0])
		}
		lines[i] = strings.TrimRight(body, "\n")
	}
	out := strings.Join(lines, "\n")
	for i, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--") && strings.Contains(l, ";") {
			return "", fmt.Errorf("expanded line %d: a comment holds ';', where the case would be cut into statements: %q", i+1, l)
		}
	}
	return out, nil
}
