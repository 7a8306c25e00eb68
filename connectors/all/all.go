// Package all registers every built-in connector and format in
// factory.Default when imported, and the s3:// checkpoint storage with
// package checkpoint, for the CLI and for programs that want everything
// streamsql ships:
//
//	import _ "github.com/streamsql/streamsql/connectors/all"
//
// An embedder that wants only some connectors imports their packages
// instead; each registers itself from init().
package all

import (
	// The built-in connectors.
	_ "github.com/streamsql/streamsql/connectors/blackhole"
	_ "github.com/streamsql/streamsql/connectors/datagen"
	_ "github.com/streamsql/streamsql/connectors/filesystem"
	_ "github.com/streamsql/streamsql/connectors/jdbc"
	_ "github.com/streamsql/streamsql/connectors/kafka"
	_ "github.com/streamsql/streamsql/connectors/nexmark"
	_ "github.com/streamsql/streamsql/connectors/print"

	// The built-in formats (json, csv, raw).
	_ "github.com/streamsql/streamsql/formats"

	// Checkpoints in S3-compatible object storage (s3://).
	_ "github.com/streamsql/streamsql/runtime/checkpoint/s3store"
)
