// Package planner turns a parsed job file into a job plan: it owns the
// catalog of tables and views, resolves names and types, type-checks each
// INSERT against its sink, validates every table's options through the
// factory registry, and compiles filters and projections (with
// planner/expr) into per-row transforms. EXPLAIN prints the plan. It
// knows no connector: package job, the composition root, plans with it,
// builds the runtime's pipelines and runs them (the CLI is a client of
// job).
//
// The types to learn first: [Plan] (what [Compile] returns: the job's
// sources, sinks, flows and settings), [Catalog] (tables and views by
// [Identifier]), [Options] (what Compile is given) and [Error] (a planning
// error with its position; [ErrorList] when there are several).
//
// # Entry points
//
//   - [Compile] and [CompileFile] plan a job file (all its INSERTs, statement
//     sets and bare queries are one job) into a [*Plan]; [Options] carry the
//     registry, a pre-filled [Catalog], ${NAME} values, and settings below
//     (Defaults) and over (Set) the file's SET statements.
//   - [Plan.Explain] writes the EXPLAIN text; [Flow.Compile] compiles a
//     flow's filter and projection; [Plan.PipelineNames] names the
//     pipelines. The planner creates no source or sink and knows nothing of
//     the runtime: package job builds the runtime's description of the job
//     from a Plan (job.Build, job.RuntimeSpec), creating sources and sinks
//     through [Plan.Registry].
//   - [Catalog.RegisterTable] registers a table from Go; [LoadCatalog] runs
//     a file of CREATE statements.
//
// # Semantics
//
// Names are qualified as Flink does (default_catalog.default_database.t),
// with the current catalog and database, which USE CATALOG and USE change
// (catalogs.go): CREATE CATALOG makes a generic_in_memory catalog (with
// its 'default-database', "default" unless given), CREATE DATABASE a
// database in one; a table or view in a database that was not created is
// refused, as in Flink (Catalog.RegisterTable creates it); a view's names
// are those of the database it was created in; DROP DATABASE refuses a
// database that holds tables or views unless CASCADE; neither the current
// catalog nor the current database can be dropped. A catalog file's USE
// holds for the job compiled with its catalog (as a Flink SQL client's
// initialization file). Identifiers are case-sensitive. CREATE TABLE ... LIKE is merged with
// ddl.MergeLike; CREATE TABLE ... AS query (CTAS) creates a table of the
// query's columns (a repeated name numbered, id0, as Flink's validator
// names it), merged with its column list by ddl.MergeAs (Flink's rules:
// new columns first, a query column at the list's type, or a list of
// names ordering the query's columns; a PRIMARY KEY over NOT NULL query
// columns only), and plans an INSERT of the query into it (only the INSERT
// when IF NOT EXISTS finds the table); REPLACE TABLE ... AS (of a table that exists) and
// CREATE OR REPLACE TABLE ... AS redefine the table so for the statements
// after them; IF NOT EXISTS keeps the first definition; DROP removes.
// ALTER TABLE changes a table for the statements after it (alter.go,
// ddl.AlterTableDef), ALTER VIEW renames a view or replaces its query; a
// failed one leaves the table or view as it was.
// DESCRIBE name is a printed query of a row per column of the table or
// view (describe.go), in the columns of Flink's DESCRIBE; SHOW TABLES,
// VIEWS, DATABASES, CATALOGS, CURRENT CATALOG / DATABASE and COLUMNS print
// the names as they stand at that statement, sorted, kept by LIKE; SHOW
// CREATE TABLE the table's statement as Flink writes it, secrets masked.
// OPTIONS hints on a FROM table or an INSERT target override its WITH
// options for that use. Views and WITH are inlined. A query's stateless
// parts (SELECT, WHERE, UNION ALL: each input its own flow) run in the
// flows of its pipeline; GROUP BY, windows, joins (semi.go: IN and EXISTS;
// scalar.go: scalar subqueries), ranking, OVER and set operations are
// operator nodes (node.go; aggregate.go, window.go, join.go, rank.go,
// over.go, setop.go and the like). ddl parses
// every Flink query form; the planner refuses those it cannot run yet
// (refuse.go, and the planning code where the refusal depends on the
// query's shape) with an error wrapping ddl.ErrUnsupported at the
// construct, the first one in the statement's text.
//
// An INSERT's query columns are matched to the sink's writable columns
// (physical columns and non-VIRTUAL metadata columns, in order, or the
// INSERT's column list, other columns getting NULL) and converted with
// Flink's implicit casts (expr.AssignTo); a mismatch names the columns and
// types of both sides. A nullable value for a NOT NULL column is accepted,
// as in Flink, and checked per row (Flow.NotNull; the job setting
// table.exec.sink.not-null-enforcer: ERROR fails with a *NotNullError,
// DROP drops the row).
//
// # Row layout between planner and connectors
//
// A source delivers rows whose fields are the table's physical and
// metadata columns in declaration order (computed columns are left out;
// the planner evaluates them), each metadata column with the type the
// connector gives its key (factory.ConnectorFactory.ReadableMetadata): the
// factory's schema carries that type, and the planner casts to the
// declared one, so a metadata column may be declared with any type its
// metadata casts to (Kafka's INT partition as BIGINT). A sink receives its
// physical and non-VIRTUAL metadata columns in declaration order, metadata
// cast to the type the connector writes; its factory's schema has exactly
// those columns.
//
// # Connector traits
//
// What the planner knows about a connector comes from its factory
// (factory.ConnectorFactory), for built-in and embedders' connectors
// alike: readable and writable metadata keys with their types, the
// changelog modes of its source and sink, whether its tables need a
// PRIMARY KEY, and from its Describe hook (factory.TableInfo) a table's
// delivery guarantee, derived options, EXPLAIN lines, warnings and
// exclusive resources. A metadata key a connector does not read is an
// error; a non-VIRTUAL metadata column whose key the connector cannot
// write makes the table unusable as a sink (as in Flink: declare it
// VIRTUAL). A source producing updates (upsert-kafka) into an append-only
// sink (kafka, filesystem) is an error. A connector that declares no
// metadata is trusted to deliver metadata as declared; one that declares
// no changelog mode is append-only. The planner itself names no connector
// and no connector option: its checks are generic.
//
// # Exactly-once
//
// Options a connector derives (an exactly-once Kafka sink's
// transactional-id prefix "<job name>-<table>" when none is given, a
// deliberate deviation from Flink 1.14+; see docs/exactly-once.md) are passed to the
// factory in the sink's options and shown with a warning. Two sinks of the
// job claiming one exclusive resource (a transactional-id prefix) are an
// error. EXPLAIN warns when an exactly-once sink runs without
// checkpointing or with AT_LEAST_ONCE checkpoints, and when a source reads
// uncommitted records of a topic an exactly-once sink of the same job
// writes; the connectors add their own warnings (a Kafka transaction
// timeout shorter than a slow checkpoint, execution.checkpointing.mode
// EXACTLY_ONCE with an at-least-once Kafka sink).
//
// # Errors
//
// Every error of a file that can be shown is reported in one run: the
// statements that parse are planned even when others do not
// (ddl.ParseAll), and planning continues after an error. Compile returns an
// [ErrorList] of *ddl.Error (parsing) and [*Error] values in file order
// (errors without a position, such as those of --set settings, first),
// each with file, line, column and a caret. Planning errors are
// classified by [ErrUnknownName], [ErrDuplicateName], [ErrType],
// [ErrInvalidTable], [ErrInvalidCatalog], [ErrInvalidSetting] or
// ddl.ErrUnsupported and wrap
// the typed cause (a *factory.TableError, an *expr.AssignmentError, ...);
// parse errors by ddl.ErrSyntax, ddl.ErrUnsupported or
// ddl.ErrUndefinedVariable; errors.Is and errors.As see all of them
// through the list. Parsing reports at most ten statements with errors
// and stops at the tenth (a malformed ${ reference stops it at once); a
// statement that uses an undefined ${NAME} is a failed statement like
// one with a syntax error.
//
// Errors that only repeat or follow from an earlier one are left out:
//
//   - A table or view whose definition failed (in planning, or a CREATE
//     TABLE or CREATE VIEW that did not parse but whose name the parser
//     read) is not reported as unknown where it is used, until a later
//     statement defines it: not by an INSERT, a FROM, a LIKE, a view over
//     it (which then fails silently in turn), or a DROP. Other errors that
//     mention the name, such as an unknown column, are still reported.
//   - After a CREATE CATALOG, CREATE DATABASE or USE that failed (in
//     parsing or planning), no table or view is reported unknown by the
//     statements after it: their names may be qualified with another
//     database than the file meant, or live in the catalog or database
//     that was not created.
//   - After a statement that did not parse and may have defined a table,
//     view or function whose name is not known — a CREATE that failed
//     before its name, a CREATE CATALOG, DATABASE or FUNCTION, or a
//     statement whose first word streamsql does not know (a misspelt
//     CREATE, USE, ALTER, ...) — no table, view or function is reported
//     unknown by the statements after it. Unknown columns still are.
//   - After a DROP that did not parse, a CREATE of the same name (of any
//     name, if the DROP's name was not read, or after an unknown
//     statement) is not reported as a duplicate.
//   - When a SET or RESET did not parse (or an unknown statement, or
//     parsing stopped early), the job's settings are not known: the checks
//     of the settings together (jobconfig.Config.Validate, such as a
//     checkpoint timeout below its minimum) and the check of a Kafka
//     sink's transaction timeout against the checkpoint settings are
//     skipped. A value that is bad on its own, or an unknown key, is
//     still reported.
//   - Options already reported for a table are not reported again.
//
// A statement that parsed completely and lacks only the ';' before the
// next statement is planned as well. Option values that are secrets are
// masked in errors and in EXPLAIN.
package planner
