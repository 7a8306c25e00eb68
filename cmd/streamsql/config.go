package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/streamsql/streamsql/internal/errlist"
	"github.com/streamsql/streamsql/internal/suggest"
	"github.com/streamsql/streamsql/job"
)

// knownKeys returns every key a configuration file may set.
func knownKeys() []string { return job.SettingKeys() }

// ConfigError is an error in a configuration file.
type ConfigError struct {
	// File is the configuration file; Key the option concerned, if any.
	File, Key string
	// Reason says what is wrong.
	Reason string
}

func (e *ConfigError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("%s: '%s': %s", e.File, e.Key, e.Reason)
}

// loadConfig reads a YAML configuration file whose keys are SET options;
// nested maps are flattened with dots ("execution: {checkpointing:
// {interval: 5s}}" is "execution.checkpointing.interval"). Unknown keys
// and invalid runtime values are errors naming the file and the key.
func loadConfig(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	return parseConfig(path, data)
}

// parseConfig is loadConfig on the content data of the file path.
func parseConfig(path string, data []byte) (map[string]string, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return map[string]string{}, nil
		}
		return nil, &ConfigError{File: path, Reason: "not valid YAML: " + err.Error()}
	}
	out := map[string]string{}
	var errs []error
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return out, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &ConfigError{File: path, Reason: "want a mapping of option keys to values"}
	}
	flattenYAML(path, "", root, out, &errs)
	known := knownKeys()
	for _, k := range slices.Sorted(maps.Keys(out)) {
		if slices.Contains(known, k) {
			continue
		}
		reason := "unknown option"
		if best := suggest.Nearest(k, known, max(len(k)/3, 2)); best != "" {
			reason += fmt.Sprintf("; did you mean '%s'?", best)
		}
		errs = append(errs, &ConfigError{File: path, Key: k, Reason: reason})
	}
	if len(errs) == 0 {
		if err := job.CheckSettings(out); err != nil {
			for _, e := range errlist.Flatten(err) {
				ce := &ConfigError{File: path, Reason: e.Error()}
				var rce *job.SettingError
				if errors.As(e, &rce) {
					ce.Key, ce.Reason = rce.Key, rce.Reason
					if rce.Value != "" {
						ce.Reason = fmt.Sprintf("'%s': %s", rce.Value, rce.Reason)
					}
				}
				errs = append(errs, ce)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func flattenYAML(file, prefix string, n *yaml.Node, out map[string]string, errs *[]error) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if prefix != "" {
			key = prefix + "." + key
		}
		switch v.Kind {
		case yaml.MappingNode:
			flattenYAML(file, key, v, out, errs)
		case yaml.ScalarNode:
			if _, dup := out[key]; dup {
				*errs = append(*errs, &ConfigError{File: file, Key: key, Reason: fmt.Sprintf("set twice (line %d)", k.Line)})
			}
			if v.Tag == "!!null" {
				*errs = append(*errs, &ConfigError{File: file, Key: key, Reason: fmt.Sprintf("no value (line %d)", k.Line)})
				continue
			}
			out[key] = v.Value
		case yaml.AliasNode:
			*errs = append(*errs, &ConfigError{File: file, Key: key, Reason: fmt.Sprintf("aliases are not supported (line %d)", k.Line)})
		default:
			*errs = append(*errs, &ConfigError{File: file, Key: key, Reason: fmt.Sprintf("want a single value, not a list (line %d)", k.Line)})
		}
	}
}

// parseSets parses --set key=value flags.
func parseSets(sets []string) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--set %q: want key=value", s)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}
