// Package secret decides which option keys hold secrets and masks their
// values in SQL text shown to users (error excerpts). factory and ddl both
// use it, so that a parse error and an option error mask the same keys.
package secret

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Mask is what a secret value is shown as.
const Mask = "******"

// sensitiveWords are the substrings that mark a key as secret: Flink's
// GlobalConfiguration.SENSITIVE_KEYS, plus private keys given inline
// (Kafka's ssl.keystore.key).
var sensitiveWords = []string{
	"password", "secret", "fs.azure.account.key", "apikey", "api-key", "auth-params",
	"service-key", "token", "basic-auth", "jaas.config", "http-headers",
	"keystore.key", "private-key", "private.key",
}

// IsSensitiveKey reports whether an option key looks like it holds a
// secret (password, secret, token, jaas.config, ...).
func IsSensitiveKey(key string) bool {
	k := strings.ToLower(key)
	for _, w := range sensitiveWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// pair matches 'key' = 'value' in SQL text, the value possibly unterminated
// (then it runs to the end of the text) and the '=' possibly missing (a
// syntax error whose message would show the value): group 1 is the key,
// group 3 the value as written (quotes doubled), group 4 the closing quote
// if any.
var pair = regexp.MustCompile(`'((?:[^']|'')*)'(\s*=?\s*)'((?:[^']|'')*)('|$)`)

// SQLValues returns the values of the sensitive 'key' = 'value' options
// written in text (spaces and line breaks allowed around '='), as written
// between the quotes, and unescaped (a doubled quote as one) when that
// differs. Values that are empty are left out. isSecret decides which keys
// are sensitive; nil means IsSensitiveKey.
func SQLValues(text string, isSecret func(key string) bool) []string {
	if isSecret == nil {
		isSecret = IsSensitiveKey
	}
	var out []string
	for _, m := range pair.FindAllStringSubmatch(text, -1) {
		if !isSecret(strings.ReplaceAll(m[1], "''", "'")) || m[3] == "" {
			continue
		}
		out = append(out, m[3])
		if u := strings.ReplaceAll(m[3], "''", "'"); u != m[3] {
			out = append(out, u)
		}
	}
	return out
}

// MaskSQLLine returns line with the value of every sensitive 'key' = 'value'
// option on it replaced by Mask, also a value that does not end on the line
// (everything after its opening quote is masked then).
func MaskSQLLine(line string) string {
	masked, _ := MaskLine(line, 1, nil, nil)
	return masked
}

// MaskLine masks, on one line of SQL text, the value of every sensitive
// 'key' = 'value' option (as MaskSQLLine) and every occurrence of values
// (a value written in quotes, 'v', keeps its quotes: only v is masked). col
// is a 1-based column of line counted in characters, such as where an error
// points; MaskLine returns where that character is in the masked line (the
// start of the mask when it was masked), so that a caret still points at
// it. isSecret decides which keys are sensitive; nil means IsSensitiveKey.
func MaskLine(line string, col int, values []string, isSecret func(key string) bool) (string, int) {
	if isSecret == nil {
		isSecret = IsSensitiveKey
	}
	var spans [][2]int // byte ranges of line to mask
	for _, m := range pair.FindAllStringSubmatchIndex(line, -1) {
		if isSecret(strings.ReplaceAll(line[m[2]:m[3]], "''", "'")) {
			spans = append(spans, [2]int{m[6], m[7]})
		}
	}
	for _, n := range needles(values) {
		for i := 0; ; {
			j := strings.Index(line[i:], n.text)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(n.text)
			spans = append(spans, [2]int{start + n.skipStart, end - n.skipEnd})
			i += j + len(n.text)
		}
	}
	if len(spans) == 0 {
		return line, col
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	merged := spans[:1] // overlapping spans (a value found twice) become one mask
	for _, sp := range spans[1:] {
		if m := &merged[len(merged)-1]; sp[0] < m[1] || sp[0] == m[0] {
			m[1] = max(m[1], sp[1])
			continue
		}
		merged = append(merged, sp)
	}
	colOff := len(line) + col // past the end: only shifted
	if n := 0; col >= 1 {
		for off := range line {
			if n == col-1 {
				colOff = off
				break
			}
			n++
		}
	}
	var b strings.Builder
	last, shift, newCol := 0, 0, -1
	for _, sp := range merged {
		b.WriteString(line[last:sp[0]])
		b.WriteString(Mask)
		if newCol < 0 && colOff >= sp[0] && colOff < sp[1] {
			newCol = utf8.RuneCountInString(line[:sp[0]]) - shift + 1
		}
		if colOff >= sp[1] {
			shift += utf8.RuneCountInString(line[sp[0]:sp[1]]) - len(Mask)
		}
		last = sp[1]
	}
	b.WriteString(line[last:])
	if newCol < 0 {
		newCol = col - shift
	}
	return b.String(), newCol
}

// needle is text to find on a line and mask, but for skipStart bytes at
// its start and skipEnd at its end (the quotes of a quoted value).
type needle struct {
	text               string
	skipStart, skipEnd int
}

// needles returns what MaskLine looks for on a line: each value (a value
// written in quotes, 'v', keeps its quotes unmasked), and, for a value that
// spans lines (a JAAS configuration written over several lines), each of
// its lines, since a line of SQL text holds only a part of it. Parts that
// are blank (apart from the quotes) are left out: they hide nothing and
// would match any line.
func needles(values []string) []needle {
	var out []needle
	for _, v := range values {
		if v == "" {
			continue
		}
		quoted := len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\''
		q := 0
		if quoted {
			q = 1
		}
		if !strings.Contains(v, "\n") {
			out = append(out, needle{v, q, q})
			continue
		}
		parts := strings.Split(v, "\n")
		for i, p := range parts {
			n := needle{text: strings.TrimSuffix(p, "\r")}
			if i == 0 {
				n.skipStart = q
			}
			if i == len(parts)-1 {
				n.skipEnd = q
			}
			if strings.TrimSpace(n.text[n.skipStart:len(n.text)-n.skipEnd]) == "" {
				continue
			}
			out = append(out, n)
		}
	}
	return out
}
