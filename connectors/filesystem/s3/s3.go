// Package s3 links the S3 client that the filesystem connector needs for
// tables whose path is an s3:// (or s3a://) URI:
//
//	import _ "github.com/streamsql/streamsql/connectors/filesystem/s3"
//
// Package connectors/filesystem does not link it by itself: the client
// (aws-sdk-go-v2) is several megabytes of code, which a program that only
// reads and writes local files would carry, and keep resident, for
// nothing. connectors/all imports this package, and so does
// runtime/checkpoint/s3store (s3:// checkpoints) through the same client.
// Without it, a table with an s3:// path fails when it is created, naming
// this package.
package s3

import (
	// The client registers itself with package s3fs.
	_ "github.com/streamsql/streamsql/internal/s3fs/s3client"
)
