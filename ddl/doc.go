// Package ddl turns the text of a Flink SQL job file into typed statements:
// SET and RESET, CREATE TABLE and VIEW, DROP, INSERT, statement sets,
// EXPLAIN and bare queries. It is the first stage of streamsql
// (ddl → planner → factory → runtime) and knows nothing about connectors or
// catalogs: it checks syntax and the rules that need no catalog, and hands
// the planner a tree in which every node carries its position in the user's
// file.
//
// The types to learn first: [Statement] (what [Parse] returns, one of the
// statement types such as [*CreateTable] and [*Insert]), [Expr] (an
// expression node; every node has a [Pos]) and [Error] (a parse failure
// with its position; [ErrorList] when there are several).
//
// # Entry points
//
//   - [Parse] and [ParseFile] parse a whole job file into []Statement.
//   - [ParseExpr] parses one scalar expression; [ParseType] one Flink type.
//   - [FormatExpr] prints an expression back as fully parenthesised SQL
//     (for EXPLAIN and tests) that parses to the same tree; [FormatQuery]
//     does the same for a query.
//   - [MergeLike] applies a CREATE TABLE's LIKE clause to the source table
//     the caller looked up, with Flink's merging rules ([LikeStrategies]).
//   - [MergeAs] gives the table CREATE TABLE ... AS query creates from the
//     query's columns and the statement's column list.
//   - [Walk] visits an expression tree.
//
// # Statements
//
// The statement kinds are [*Set], [*Reset], [*CreateTable], [*CreateView],
// [*CreateFunction], [*Drop], [*Insert], [*StatementSet], [*Explain],
// [*QueryStatement], [*Describe], [*Show], [*AlterTable] and [*AlterView].
// CREATE TABLE keeps columns in order with their kind ([PhysicalColumn],
// [MetadataColumn] with its key and VIRTUAL flag, [ComputedColumn] with its
// expression), the WATERMARK, the PRIMARY KEY (column or table constraint;
// NOT ENFORCED is required, as in Flink), COMMENT, PARTITIONED BY, the WITH
// options as an ordered list with the positions of each key and value
// (duplicate keys are an error), and the LIKE clause with its options
// (OVERWRITING is rejected for ALL, CONSTRAINTS and PARTITIONS, as Flink
// does). Column types are [types.Type] values from the shared types package;
// primary key columns are made NOT NULL, as in Flink. Without a LIKE
// clause, the PRIMARY KEY, PARTITIONED BY and WATERMARK columns must be
// declared (and key columns physical); with one, they may come from the
// source table and [MergeLike] checks them after merging.
// INSERT keeps the target, its OPTIONS hint, the optional column list and
// the query; a FROM table keeps its own OPTIONS hint. Both statement-set
// forms (EXECUTE STATEMENT SET BEGIN ... END and the older BEGIN STATEMENT
// SET; ... END) give a [*StatementSet] of INSERTs.
//
// # Queries and expressions
//
// A [Query] is a tree of Flink's (Calcite's) query forms, every node with
// its line:column:
//
//   - [*Select]: query hints after SELECT ([Hint]: STATE_TTL, LOOKUP,
//     BROADCAST, ...), DISTINCT, the items, FROM, WHERE, GROUP BY
//     ([GroupBy] of [GroupItem]: expressions, (a, b), (), GROUPING SETS,
//     ROLLUP, CUBE; legacy group windows such as TUMBLE(ts, INTERVAL '1'
//     HOUR) are ordinary calls), HAVING and WINDOW ([NamedWindow]).
//   - [*SetOp]: UNION, INTERSECT and EXCEPT (also MINUS), each with ALL or
//     DISTINCT; INTERSECT binds tighter, operators of one precedence nest
//     to the left.
//   - [*Values]; [*With] (WITH name [(cols)] AS (query), ... body, also in
//     INSERT and CREATE VIEW); [*OrderBy] (ORDER BY, LIMIT, OFFSET, FETCH,
//     wrapping the query it sorts, as Calcite's SqlOrderBy).
//
// A FROM source is a [TableRef]:
//
//   - [*TableName] with its OPTIONS hint (Hints), other table hints
//     (OtherHints), FOR SYSTEM_TIME AS OF (temporal and lookup joins) and
//     alias; [*Subquery], also LATERAL.
//   - [*Join]: comma joins, [INNER] JOIN, LEFT/RIGHT/FULL [OUTER] JOIN and
//     CROSS JOIN with ON or USING, and NATURAL joins (Natural), nested to
//     the left as in Calcite; a join in parentheses has no node of its
//     own.
//   - [*TableFunc]: TABLE(f(args)) and LATERAL TABLE(f(args)). Window
//     table functions are table functions: TABLE(TUMBLE(TABLE t,
//     DESCRIPTOR(ts), INTERVAL '10' MINUTE)) has Name TUMBLE and [FuncArg]s
//     holding a [TableArg], a [Descriptor] and an expression; Flink's
//     named arguments (DATA => ..., TIMECOL =>, SIZE =>, SLIDE =>, STEP =>,
//     GAP =>, OFFSET =>) set FuncArg.Name, and SESSION's PARTITION BY is in
//     its TableArg (TABLE t PARTITION BY k). A query is passed as
//     (SELECT ...), without TABLE, as Flink takes it.
//   - [*Unnest]: UNNEST(expr, ...) [WITH ORDINALITY], usually after CROSS
//     JOIN.
//
// Expressions add [*Over] (f(...) OVER (PARTITION BY ... ORDER BY ...
// ROWS|RANGE BETWEEN ...), or OVER name: a [WindowSpec] with its [Frame])
// and the subquery expressions [*ScalarSubquery], [*Exists], [*InQuery]
// and [*Quantified] (x op ANY|SOME|ALL (query)); an aggregate call keeps
// DISTINCT, WITHIN GROUP and FILTER (WHERE ...) on its [*Call]; COUNT(*)
// sets Call.Star. PROCTIME(), CURRENT_WATERMARK(col) and the window
// property functions (TUMBLE_START, HOP_END, SESSION_ROWTIME, ...) are
// ordinary calls. [FormatQuery] prints a query back as SQL that parses to
// the same tree.
//
// The parser checks syntax and the rules that need no catalog (a JOIN
// needs ON or USING, names in WITH and WINDOW are unique, PARTITION BY of
// a table argument names columns, ...). Which of these forms streamsql
// can run is the planner's decision: it refuses each form it cannot run
// yet with an error wrapping [ErrUnsupported] at the form's position, so
// that the planner owns every refusal. The parser itself refuses, with
// ErrUnsupported, only what Flink does not offer for streaming queries
// (WITH RECURSIVE, QUALIFY), MATCH_RECOGNIZE, and statements
// and clauses outside streamsql's scope (INSERT OVERWRITE, CALL, ...). CREATE CATALOG, CREATE DATABASE, USE and their
// DROPs parse into [*CreateCatalog], [*CreateDatabase], [*Use] and [*Drop]. CREATE FUNCTION parses into a
// [*CreateFunction] for the planner to refuse.
//
// An [Expr] is a tree of plain structs with upper-cased function names, so
// that it lowers directly into the planner's IR; special syntax becomes
// ordinary calls with [*Symbol] arguments (see [Expr] for the mapping).
// Literals carry their Flink type and their value in the row model
// ([types.Value]): 42 is INT NOT NULL, 1.50 is DECIMAL(3, 2) NOT NULL, 1e3 is
// DOUBLE NOT NULL, 'ab' is CHAR(2) NOT NULL. Interval literals carry months
// or milliseconds.
//
// Expressions and queries are parsed by ddl's own recursive-descent parser,
// not by TiDB's; parse_expr.go explains why. TiDB's parser is therefore not
// imported by this package.
//
// # Lexical rules
//
// Keywords are case-insensitive; identifiers keep their case and may be
// back-quoted (`name`; a doubled back-quote stands for one). Strings use
// single quotes; a doubled single quote stands for one. Comments are --
// to end of line and /* ... */; a comment that starts with /*+ is a hint.
// Semicolons inside strings, quoted identifiers and comments do not end
// statements. A small set of words (SELECT, FROM, WHERE, PARTITION, ...) is
// reserved and must be back-quoted to be used as a name, as in Flink.
//
// # Variables
//
// Before parsing, ${NAME} and ${NAME:-default} are replaced by values from
// [Config.Vars], then [Config.Env] (pass os.LookupEnv for the process
// environment). Replacement happens everywhere except inside -- and /* */
// comments (hints are substituted); values are inserted as they are, so a
// value used inside a string literal must not contain a single quote. An
// undefined name without a default is an error wrapping
// [ErrUndefinedVariable] for the statement it is in (the other statements
// are still parsed); a malformed reference such as ${1x} or an unclosed
// ${ stops parsing. Positions always refer to the original text: a
// token that came from a substituted value is reported at its ${.
//
// # Errors
//
// Each error is an [*Error] carrying File, Line, Column (in characters,
// 1-based), the source line and a caret, for example
//
//	job.sql:4:12: unknown type 'STRIN' (did you mean STRING?)
//	    customer STRIN,
//	             ^
//
// Its Err field is [ErrSyntax], [ErrUnsupported] or [ErrUndefinedVariable];
// use errors.Is and errors.As. A statement with an error is skipped and
// parsing continues, so [Parse] reports the first error of each failing
// statement (an [ErrorList] when there are several, at most ten). Bad
// input never panics: FuzzParse guards this, and nesting deeper than 200
// levels is an error.
//
// [ParseAll] parses the same way but returns the statements that did parse
// as well, with a [Failure] for each one that did not: its error, its
// [StatementKind] and, when the parser read them before the error, the
// name a CREATE TABLE, CREATE VIEW or DROP names and the key of a SET or
// RESET. The planner uses this to check the good statements in the same
// run and to leave out errors that only follow from a failed one.
package ddl
