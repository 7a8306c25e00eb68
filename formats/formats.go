// Package formats registers every built-in format (json, csv, raw, avro,
// avro-confluent) in
// factory.Default when imported:
//
//	import _ "github.com/streamsql/streamsql/formats"
//
// Each format lives in its own package (formats/json, formats/csv, formats/avro,
// formats/raw) and is written against the same public factory API that an
// embedder's own formats use.
package formats

import (
	// Register the built-in formats.
	_ "github.com/streamsql/streamsql/formats/avro"
	_ "github.com/streamsql/streamsql/formats/avroconfluent"
	_ "github.com/streamsql/streamsql/formats/cdc"
	_ "github.com/streamsql/streamsql/formats/csv"
	_ "github.com/streamsql/streamsql/formats/json"
	_ "github.com/streamsql/streamsql/formats/raw"
)
