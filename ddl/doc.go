// Package ddl turns the text of a Flink SQL job file into typed statements:
// SET and RESET, CREATE TABLE and VIEW, INSERT, statement sets and EXPLAIN.
package ddl
