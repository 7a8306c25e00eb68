// Package connectors holds one sub-package per connector (kafka, datagen,
// print, blackhole, filesystem) and the formats beside them.
package connectors
