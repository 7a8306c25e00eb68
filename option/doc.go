// Package option declares typed options and validates them once: the
// WITH options of connectors and formats (package factory builds on it)
// and the job's settings (execution.checkpointing.*, restart-strategy.*,
// pipeline.*, table.*; packages runtime and planner declare theirs with
// it). One declaration gives the key, type, default, description,
// deprecated keys and sensitivity; the configuration reference
// (docs/configuration.md) is generated from the declarations.
//
// The types to learn first: [Opt] (a typed declaration, read back with
// Get), [Config] (validated values), [Validator] (the one validation path)
// and [Rule] (relations between options, as data).
//
// Constructors: [String], [Int], [Long], [Float], [Bool], [Duration]
// (Flink syntax: "10s", "1 min", "500 ms"), [Size] ("64mb"), [Enum]
// (case-insensitive, read back in the declared spelling), [List]
// (';'-separated), [Map] ("k1:v1,k2:v2"), [Prefix] (pass-through keys) and
// [Named] (an identifier resolved by the validator's caller). Options used
// by many connectors are declared once here: [SinkParallelism] and
// [ScanParallelism].
//
// The package imports only internal helpers, so that every layer can use
// it.
package option
