// Package all registers every built-in connector and format in
// factory.Default when imported, the s3:// checkpoint storage with package
// checkpoint, and the on-disk keyed-state backend (state.backend.type
// rocksdb, alias pebble: package state/lsm) with package state, for the
// CLI and for programs that want everything streamsql ships:
//
//	import _ "github.com/streamsql/streamsql/connectors/all"
//
// An embedder that wants only some connectors imports their packages
// instead; each registers itself from init(). The same holds for the
// checkpoint storage (runtime/checkpoint/s3store), the filesystem
// connector's s3:// paths (connectors/filesystem/s3) and the state backend
// (state/lsm), which link an S3 client and pebble: a program that does not
// import them (or this package) does not pay for them in binary size and
// resident memory. Package job registers only the in-memory state backend
// (hashmap, the default).
package all

import (
	// The built-in connectors.
	_ "github.com/streamsql/streamsql/connectors/blackhole"
	_ "github.com/streamsql/streamsql/connectors/datagen"
	_ "github.com/streamsql/streamsql/connectors/filesystem"
	_ "github.com/streamsql/streamsql/connectors/filesystem/s3" // s3:// paths
	_ "github.com/streamsql/streamsql/connectors/jdbc"
	_ "github.com/streamsql/streamsql/connectors/kafka"
	_ "github.com/streamsql/streamsql/connectors/nexmark"
	_ "github.com/streamsql/streamsql/connectors/print"

	// The built-in formats (json, csv, raw).
	_ "github.com/streamsql/streamsql/formats"

	// Checkpoints in S3-compatible object storage (s3://).
	_ "github.com/streamsql/streamsql/runtime/checkpoint/s3store"

	// The on-disk keyed-state backend (state.backend.type rocksdb).
	_ "github.com/streamsql/streamsql/state/lsm"
)
