package planner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/secret"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// Options configure planning.
type Options struct {
	// Registry validates table options; nil means factory.Default.
	Registry *factory.Registry
	// Catalog holds tables and views registered by the program before the
	// file's statements run; nil means an empty catalog. It is cloned, not
	// modified.
	Catalog *Catalog
	// Vars and Env give values for ${NAME} references (see ddl.Config);
	// pass os.LookupEnv as Env for the process environment.
	Vars map[string]string
	Env  func(string) (string, bool)
	// Defaults are settings applied before the file's SET statements (the
	// CLI's --config file): a SET of the file wins over them, and a RESET
	// goes back to them.
	Defaults map[string]string
	// Set are settings applied after the file's SET statements (the
	// CLI's --set key=value); they win over the file.
	Set map[string]string
	// JobName overrides the job's name (pipeline.name, else the file's
	// base name without extension).
	JobName string
	// Functions are scalar functions written in Go that the file's SQL may
	// call by name, or bind to with CREATE FUNCTION name AS 'class' (by
	// the function's name or one of its Classes).
	Functions []*expr.Function
	// Hints are table options by table name (as written in the file,
	// without catalog and database), applied to every read and write of
	// the table over its WITH options and OPTIONS hints, before the
	// options are validated: the checks across tables and EXPLAIN see
	// them. Plan.HintedTables says which of them the job uses.
	Hints map[string]map[string]string
	// DefaultCheckpointDir, when set, is the folder a job that checkpoints
	// and sets no execution.checkpointing.dir uses, instead of the
	// per-user default (ckptpath.Default); see "Checkpoint folder".
	DefaultCheckpointDir string
	// Unset stands in for ${NAME} references without a default that Vars
	// and Env do not define (ddl.Config.Unset); nil: they are errors.
	Unset func(name string) (string, bool)
}

// Plan is a planned job file: the job's name and settings, and one
// pipeline per INSERT (a statement set's INSERTs and a file's INSERTs all
// belong to the one job).
type Plan struct {
	// JobName is the job's name (docs/runtime.md, "Job identity").
	JobName string
	// File is the file name given to the planner.
	File string
	// Settings are the effective SET options (Options.Defaults, the
	// file, then Options.Set).
	Settings map[string]string
	// CheckpointModeSet tells whether the job set
	// execution.checkpointing.mode (Runtime.Checkpoint.Mode holds the mode
	// in effect either way).
	CheckpointModeSet bool
	// ScaleOut is pipeline.scale-out; InstanceID is pipeline.instance-id
	// (docs/scale-out.md).
	ScaleOut   bool
	InstanceID string
	// Runtime is the runtime configuration parsed from Settings.
	Runtime jobconfig.Config
	// CheckpointDirDefault is set when Runtime.Checkpoint.Dir is the
	// per-user default folder (ckptpath.Default), not a setting: the
	// job checkpoints and execution.checkpointing.dir is not set (see
	// "Checkpoint folder" in the package documentation).
	CheckpointDirDefault bool
	// StateTTL is table.exec.state.ttl (0: none), DefaultParallelism
	// parallelism.default, IdleTimeout table.exec.source.idle-timeout.
	StateTTL           time.Duration
	DefaultParallelism int
	IdleTimeout        time.Duration
	// MiniBatch is table.exec.mini-batch.size when
	// table.exec.mini-batch.enabled is true (0: off), MiniBatchLatency
	// table.exec.mini-batch.allow-latency then: a GROUP BY folds each
	// key's rows of an input batch (agg.Spec.MiniBatch).
	MiniBatch        int
	MiniBatchLatency time.Duration
	// NotNullDrop is table.exec.sink.not-null-enforcer = DROP: a row with
	// NULL for a NOT NULL sink column is dropped (and counted) rather than
	// failing the job.
	NotNullDrop bool
	// ReuseSubPlan and ReuseSource are table.optimizer.reuse-sub-plan-enabled
	// and table.optimizer.reuse-source-enabled (reuse.go): identical
	// operators and scans of an INSERT are shared (flows then share a
	// Source or a Node).
	ReuseSubPlan, ReuseSource bool
	// Inserts are the job's pipelines, in file order. Those planned from
	// an EXPLAIN statement have Explain set and are not run.
	Inserts []*Insert
	// Warnings are findings that do not stop the job.
	Warnings []Warning
	// Catalog is the catalog after the file's statements.
	Catalog *Catalog
	// HintedTables are the names of Options.Hints that the job reads or
	// writes, sorted.
	HintedTables []string

	registry *factory.Registry
	// shared is what the job's tables share (factory.JobContext.Shared).
	shared *factory.JobShared
}

// Warning is a non-fatal finding, shown by EXPLAIN and the CLI.
type Warning struct {
	// Pos is where in the file the warning is about, if anywhere.
	Pos ddl.Pos
	// Kind classifies the warning for programs, which should match on it
	// rather than on Message: one of the factory.Warn* kinds (from the
	// factories and connectors) or the planner's Warn* kinds.
	Kind factory.WarningKind
	// Message is the text shown to the user.
	Message string
}

// The planner's warning kinds (factory.WarningKind lists the factories').
const (
	// WarnIgnoredSetting: a setting the runtime accepts and ignores.
	WarnIgnoredSetting factory.WarningKind = "ignored-setting"
	// WarnCommitOnStop: an exactly-once sink in a job without
	// checkpointing commits only when the job stops.
	WarnCommitOnStop factory.WarningKind = "commit-on-stop"
	// WarnAtLeastOnceCheckpoints: execution.checkpointing.mode is
	// AT_LEAST_ONCE, so an exactly-once sink delivers at least once.
	WarnAtLeastOnceCheckpoints factory.WarningKind = "at-least-once-checkpoints"
	// WarnIgnoredJar: ADD JAR or REMOVE JAR, whose JAR streamsql does not
	// load (its connectors and formats are built in).
	WarnIgnoredJar factory.WarningKind = "ignored-jar"
	// WarnIgnoredHint: a batch join strategy hint (BROADCAST,
	// SHUFFLE_HASH, SHUFFLE_MERGE, NEST_LOOP), which Flink's streaming
	// planner ignores too.
	WarnIgnoredHint factory.WarningKind = "ignored-hint"
)

// Insert is one INSERT (or bare query) planned into a pipeline: flows
// (one per source; UNION ALL gives several) into one sink.
type Insert struct {
	Pos ddl.Pos
	// Statement is a short description: "INSERT INTO big_orders" or
	// "SELECT (printed)".
	Statement string
	Flows     []*Flow
	Sink      *Sink
	// Explain is set for the statement of an EXPLAIN: it is explained,
	// not run.
	Explain bool
	// InStatementSet is set for INSERTs of a statement set, and
	// StatementSet numbers the set in the file (1 for the first).
	InStatementSet bool
	StatementSet   int
	// SharesScan is set when a flow of the INSERT reads a scan shared
	// with another flow (table.optimizer.reuse-source-enabled): with
	// another INSERT of its statement set, or within this one.
	SharesScan bool
}

// Flow is one source with its filter and projection into the sink's row.
type Flow struct {
	Source *Source
	// Input is the input of the node the flow feeds: 0, or 1 for the right
	// side of a join.
	Input int
	// Filter is the WHERE condition over the source row (nil: keep all).
	Filter expr.Expr
	// Projection computes the sink row's fields from the source row.
	Projection []expr.Expr
	// Expand, when set, are further projections of the same width: each
	// row the filter keeps becomes one row per projection, Projection's
	// first (Flink's Expand: the grouping sets of GROUP BY ROLLUP, CUBE
	// and GROUPING SETS).
	Expand [][]expr.Expr
	// Unnest, when set, expands each source row first (FROM t CROSS JOIN
	// UNNEST(t.arr), unnest.go): every Unnest appends its columns to the
	// row the ones before it built, one row per element, and Filter,
	// Projection and Expand are over the row the last one built. Each
	// row keeps the source row's kind.
	Unnest []*Unnest
	// Names are the query's column names, for EXPLAIN.
	Names []string
	// NotNull are the indexes of the sink's NOT NULL columns whose query
	// value may be NULL, and NotNullNames their names: each row is checked
	// (table.exec.sink.not-null-enforcer, as Flink does). SinkName names
	// the sink table; DropNulls drops such rows instead of failing.
	NotNull      []int
	NotNullNames []string
	SinkName     string
	DropNulls    bool
	// ReadFields says which fields of the source row the flow reads
	// (factory.Context.ReadFields): the source decodes only those. nil:
	// every field (or a VALUES source).
	ReadFields []bool
	// ReadRows narrows the ROW fields the flow reads only through paths
	// such as bid.price (factory.Context.ReadRows): nil, or one entry per
	// source row field, nil where the field is read whole.
	ReadRows []*factory.RowRead
	// Changelog is what the flow's rows carry (see changelog.go); it is
	// inferred for the flows of stateful plans only.
	Changelog Changelog
	// Reused is set when an earlier flow of the INSERT (in EXPLAIN's
	// order) reads the same Source (a shared scan) or Source.Node (a
	// shared operator): the scan or operator runs once and feeds both
	// (reuse.go).
	Reused bool
}

// Source is what a flow reads: a table, the literal rows of VALUES, or the
// output of a stateful operator of the plan (Node).
type Source struct {
	Pos ddl.Pos
	// Table is the table read; nil for VALUES and for a node's output.
	Table *Table
	// Node is the stateful operator whose output rows the flow reads; nil
	// for a table or VALUES.
	Node *Node
	// Options are the table's WITH options with the FROM clause's OPTIONS
	// hint applied.
	Options map[string]string
	// Schema is the schema the connector's factory gets (see the package
	// documentation: no computed columns, metadata typed as delivered).
	Schema factory.Schema
	// RowTypes are the types of the fields the source delivers (physical
	// and metadata columns in declaration order).
	RowTypes []types.Type
	// Values are the rows of a VALUES source (resolved constant
	// expressions).
	Values [][]expr.Expr
	// Validated holds the factory's validated options; nil for VALUES.
	Validated *factory.Validated
	// Info is what the connector's factory says about the table as a
	// source (factory.TableInfo); zero for VALUES.
	Info factory.TableInfo
	// Changelog is what the source produces.
	Changelog factory.ChangelogMode
	// DeadLettersExactlyOnce is set when the source sets bad records aside
	// (Info.DeadLetters) and its pipeline's sink is exactly-once: its
	// dead-letter sink then commits with the checkpoints
	// (connector.DeadLetterConfig.ExactlyOnce). DeadLetterGuarantee says
	// for EXPLAIN which guarantee the dead letters have after a crash.
	DeadLettersExactlyOnce bool
	DeadLetterGuarantee    string
	// DeadLettersInSink is set when the pipeline's exactly-once sink
	// writes the source's dead letters inside its own transactions
	// (runtime.SourceSpec.DeadLettersInSink): the sink commits source
	// positions of the system the dead letters go to
	// (factory.TableInfo.DeadLettersSystem). The source's dead-letter sink
	// is then built to say how to write them, and to commit the pending
	// transactions of its own that a restored checkpoint may hold.
	DeadLettersInSink bool
	// mustRead are expressions over the source row whose fields are read
	// whatever the query uses (watermark and primary key; see
	// mustReadFields).
	mustRead []expr.Expr
	// primaryKey are the row positions of the table's PRIMARY KEY columns
	// (nil without one): the upsert key of a changelog source.
	primaryKey []int
	// Watermark is the table's WATERMARK FOR expression over the source
	// row, set when the plan uses the table's event time (an event-time
	// window reads it): the source then generates watermarks from it.
	Watermark expr.Expr
	// rowtime is the table's rowtime attribute (the WATERMARK FOR column)
	// over the source row, and watermark its WATERMARK expression; nil for
	// a table without WATERMARK.
	rowtime, watermark expr.Expr
}

// Sink is the table an INSERT writes (or the CLI's printing sink for a
// bare query).
type Sink struct {
	Pos   ddl.Pos
	Table *Table
	// Options are the WITH options with the INSERT's OPTIONS hint applied
	// and the options the connector derived (Info.DerivedOptions, such as
	// a Kafka transactional-id prefix).
	Options map[string]string
	// Fields are the sink row's fields: physical and non-VIRTUAL metadata
	// columns in declaration order, metadata typed as the connector writes
	// it.
	Fields []types.Field
	// Schema is the schema the connector's factory gets.
	Schema factory.Schema
	// Validated holds the factory's validated options; nil for Print.
	Validated *factory.Validated
	// Print is set for the printing sink of a bare query.
	Print bool
	// Changelog is what the sink accepts.
	Changelog factory.ChangelogMode
	// Info is what the connector's factory says about the table as a sink
	// (factory.TableInfo).
	Info factory.TableInfo
	// DeliveryGuarantee is the configured guarantee: "exactly-once",
	// "at-least-once" or "none".
	DeliveryGuarantee string
	// hints are the INSERT's OPTIONS hints (where its warnings point).
	hints []ddl.Option
	// PrimaryKey are the positions in Fields of the table's PRIMARY KEY
	// columns; nil without one.
	PrimaryKey []int
	// AfterCrash says which guarantee the sink really has after a crash
	// with the job's checkpoint settings, as EXPLAIN shows it, such as
	// "exactly-once (checkpoints in file:///var/lib/streamsql)" or
	// "at-least-once: execution.checkpointing.mode is AT_LEAST_ONCE".
	AfterCrash string
}

// Name returns the source's table name, "VALUES", or the node's kind.
func (s *Source) Name() string {
	switch {
	case s.Node != nil:
		return s.Node.Kind.String()
	case s.Table == nil:
		return "VALUES"
	}
	return s.Table.ID.Short()
}

// Name returns the sink's table name, or "print" for a bare query.
func (s *Sink) Name() string {
	if s.Table == nil {
		return "print"
	}
	return s.Table.ID.Short()
}

// Connector returns the value of the sink's 'connector' option ("" for
// the printing sink of a bare query).
func (s *Sink) Connector() string { return s.Options[factory.ConnectorKey] }

// Connector returns the value of the source's 'connector' option,
// "values", or "" for a node's output.
func (s *Source) Connector() string {
	switch {
	case s.Node != nil:
		return ""
	case s.Table == nil:
		return "values"
	}
	return s.Options[factory.ConnectorKey]
}

// Leaves returns the flows of ins that read tables or VALUES, directly or
// through the stateful operators between them and the sink, in plan order.
func (ins *Insert) Leaves() []*Flow {
	var out []*Flow
	var walk func(fls []*Flow)
	walk = func(fls []*Flow) {
		for _, fl := range fls {
			if n := fl.Source.Node; n != nil {
				walk(n.Inputs)
				continue
			}
			out = append(out, fl)
		}
	}
	walk(ins.Flows)
	return out
}

// Nodes returns the stateful operators of ins, each after the operators
// it reads.
func (ins *Insert) Nodes() []*Node {
	var out []*Node
	var walk func(fls []*Flow)
	walk = func(fls []*Flow) {
		for _, fl := range fls {
			if n := fl.Source.Node; n != nil {
				walk(n.Inputs)
				out = append(out, n)
			}
		}
	}
	walk(ins.Flows)
	return out
}

// Graph reports whether ins runs on the job's graph of tasks rather than
// as a pipeline of its own per source (runtime.Pipeline): when it has
// stateful operators, generates watermarks, or shares a scan, which only
// the graph can feed to several flows.
func (ins *Insert) Graph() bool {
	return ins.Stateful() || ins.EventTime() || ins.SharesScan
}

// Stateful reports whether ins has stateful operators.
func (ins *Insert) Stateful() bool {
	for _, fl := range ins.Flows {
		if fl.Source.Node != nil {
			return true
		}
	}
	return false
}

// EventTime reports whether a source of the INSERT generates watermarks
// (Source.Watermark): its pipeline then runs as a graph of tasks, which
// carries them, as a stateful one does.
func (ins *Insert) EventTime() bool {
	for _, fl := range ins.Flows {
		if fl.Source.Watermark != nil {
			return true
		}
	}
	return false
}

// planner holds the state of planning one file.
type planner struct {
	// sets counts the statement sets planned so far (Insert.StatementSet).
	sets int
	// ctes are the common table expressions in scope while a query is
	// resolved, outermost first (query.go).
	ctes []cteScope

	f        *file
	cat      *Catalog
	reg      *factory.Registry
	plan     *Plan
	errs     ErrorList
	failed   map[Identifier]bool
	validate map[string]*validated
	setPos   map[string]ddl.Option
	// hintWarned are the ignored join hints already warned about (a
	// view's query is resolved where each reader reads it).
	hintWarned map[ddl.Pos]bool

	// dropFailed are the names of DROP statements that did not parse;
	// anyCreateFailed and anyDropFailed are set after a failed statement
	// that may have created or dropped a table or view whose name is not
	// known, settingsUnsure when a SET or RESET did not parse (see
	// applyFailure and the package documentation).
	dropFailed      map[Identifier]bool
	anyCreateFailed bool
	anyDropFailed   bool
	settingsUnsure  bool

	// deferred are the warnings about INSERTs, added to the plan's after
	// planning.
	deferred []Warning

	// refHints are the OPTIONS hints of the table references resolved
	// (FROM clauses, also of views), whose secrets maskSecrets masks too.
	refHints [][]ddl.Option
	// hints are Options.Hints; hinted records the tables they were
	// applied to.
	hints  map[string]map[string]string
	hinted map[string]bool
	// defaultDir is Options.DefaultCheckpointDir.
	defaultDir string

	// allowRanked lets the query resolved next return a ranked relation
	// (rank.go): the SELECT resolving its FROM filters on the rank.
	// overSelects are the ranking SELECTs to plan as OVER aggregates.
	allowRanked bool
	overSelects map[*ddl.Select]bool
	// limitOvers are the ROW_NUMBER() OVER (ORDER BY PROCTIME()) that
	// stand for a LIMIT without ORDER BY (orderlimit.go).
	limitOvers map[*ddl.Over]bool
}

// CompileFile reads and plans the job file at path.
func CompileFile(ctx context.Context, path string, opts Options) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("planner: %w", err)
	}
	return Compile(ctx, path, string(data), opts)
}

// Compile parses and plans the text of a job file. name is the file name
// used in errors and, without directory and extension, the default job
// name. It connects nowhere: options are validated by the factories, not
// by creating sources and sinks. Errors are an ErrorList of *ddl.Error and
// *Error values in file order (see Errors): the statements that parse are
// planned even when others do not, so parse and planning errors come
// together (see "Errors" in the package documentation). The Plan is
// returned only when there are none.
func Compile(ctx context.Context, name, text string, opts Options) (*Plan, error) {
	p, err := run(ctx, name, text, opts, false)
	if err != nil {
		return nil, err
	}
	return p.plan, nil
}

// LoadCatalog runs the CREATE and DROP statements of a file of table
// definitions on a copy of opts.Catalog and returns the copy, for programs
// that keep shared definitions in a file of their own. SET statements are
// ignored; an INSERT or query is an error.
func LoadCatalog(ctx context.Context, name, text string, opts Options) (*Catalog, error) {
	p, err := run(ctx, name, text, opts, true)
	if err != nil {
		return nil, err
	}
	return p.cat, nil
}

func run(ctx context.Context, name, text string, opts Options, catalogOnly bool) (*planner, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	reg := opts.Registry
	if reg == nil {
		reg = factory.Default
	}
	parsed := ddl.ParseAll(name, text, ddl.Config{Vars: opts.Vars, Env: opts.Env, Sensitive: reg.IsSensitive, Unset: opts.Unset})
	stmts := parsed.Statements
	p := &planner{
		f:          newFile(name, text),
		reg:        opts.Registry,
		failed:     map[Identifier]bool{},
		dropFailed: map[Identifier]bool{},
		validate:   map[string]*validated{},
		setPos:     map[string]ddl.Option{},
		hints:      opts.Hints,
		defaultDir: opts.DefaultCheckpointDir,
		hinted:     map[string]bool{},
	}
	if p.reg == nil {
		p.reg = factory.Default
	}
	p.f.funcs = map[string]*expr.Function{}
	for _, f := range opts.Functions {
		err := f.Check()
		if err == nil && p.f.funcs[strings.ToUpper(f.Name)] != nil {
			err = fmt.Errorf("two Go functions are named %s", f.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("planner: %w", err)
		}
		p.f.funcs[strings.ToUpper(f.Name)] = f
	}
	if opts.Catalog != nil {
		p.cat = opts.Catalog.Clone()
	} else {
		p.cat = NewCatalog()
	}
	p.plan = &Plan{File: name, Settings: maps.Clone(opts.Defaults), Catalog: p.cat, registry: p.reg}
	if p.plan.Settings == nil {
		p.plan.Settings = map[string]string{}
	}
	for _, f := range parsed.Failures {
		p.errs = append(p.errs, f.Err)
		if f.Statement == nil && (f.Kind == ddl.KindSet || f.Kind == ddl.KindReset || f.Kind == ddl.KindUnknown) {
			p.settingsUnsure = true
		}
	}
	if parsed.Truncated {
		p.settingsUnsure = true
	}
	// Settings first: the job name and checkpoint settings are needed by
	// every INSERT, wherever the SET is in the file (Flink applies a SET
	// to the statements after it; a job file's settings are the job's).
	for _, s := range stmts {
		switch s := s.(type) {
		case *ddl.Set:
			if s.Key != "" {
				p.plan.Settings[s.Key] = s.Value
				p.setPos[s.Key] = s.Option
			}
		case *ddl.Reset:
			if s.Key == "" {
				clear(p.plan.Settings)
				maps.Copy(p.plan.Settings, opts.Defaults)
			} else if v, ok := opts.Defaults[s.Key]; ok {
				p.plan.Settings[s.Key] = v
			} else {
				delete(p.plan.Settings, s.Key)
			}
		}
	}
	maps.Copy(p.plan.Settings, opts.Set)
	p.plan.JobName = jobName(name, p.plan.Settings, opts.JobName)
	p.errs = append(p.errs, p.runtimeSettings()...)
	p.scaleOutSettings()

	failures := parsed.Failures
	for _, s := range stmts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for len(failures) > 0 && failures[0].Err.Offset < s.Position().Offset {
			p.applyFailure(failures[0])
			failures = failures[1:]
		}
		if catalogOnly {
			switch s.(type) {
			case *ddl.Insert, *ddl.StatementSet, *ddl.QueryStatement, *ddl.Describe, *ddl.Show, *ddl.Explain:
				p.errs = append(p.errs, p.f.errorAt(s.Position(), ErrInvalidSetting, nil,
					"a catalog file holds only CREATE and DROP statements"))
				continue
			}
		}
		p.statement(s, false)
	}
	p.plan.HintedTables = slices.Sorted(maps.Keys(p.hinted))
	p.maskSecrets(stmts)
	if catalogOnly {
		if len(p.errs) > 0 {
			return nil, p.sortedErrors()
		}
		return p, nil
	}
	p.plan.assignIDs()
	p.checkExclusive()
	p.checkScaleOut()
	p.sinkWatermarks()
	p.checkDurability()
	if len(p.errs) == 0 && len(p.plan.Inserts) == 0 {
		p.errs = append(p.errs, &Error{File: name, Message: ErrNoJob.Error(), Err: ErrNoJob})
	}
	if len(p.errs) > 0 {
		return nil, p.sortedErrors()
	}
	p.plan.reuse()
	p.warnings()
	return p, nil
}

func jobName(file string, settings map[string]string, override string) string {
	if override != "" {
		return override
	}
	if n := settings[SettingPipelineName]; n != "" {
		return n
	}
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

func (p *planner) statement(s ddl.Statement, explain bool) {
	switch s := s.(type) {
	case *ddl.CreateTable:
		p.createTable(s)
	case *ddl.CreateView:
		p.createView(s)
	case *ddl.CreateFunction:
		p.createFunction(s)
	case *ddl.Module:
		p.module(s)
	case *ddl.Jar:
		verb := "ADD JAR"
		if s.Remove {
			verb = "REMOVE JAR"
		}
		p.plan.Warnings = append(p.plan.Warnings, Warning{Pos: s.Pos, Kind: WarnIgnoredJar,
			Message: fmt.Sprintf("%s '%s' is ignored: streamsql's connectors and formats are built in (a JAR of Java functions is not loaded either: register Go functions, job.Options.Functions)", verb, s.Path)})
	case *ddl.CreateCatalog, *ddl.CreateDatabase, *ddl.Use:
		if err := p.cat.catalogStatement(p.f, s); err != nil {
			p.addErr(err)
			// The tables of a catalog or database that was not created,
			// or the names after a USE that failed, would be reported
			// unknown only because of this error.
			p.anyCreateFailed = true
		}
	case *ddl.Drop:
		if s.Kind == ddl.DropFunction {
			p.dropFunction(s)
		} else if err := p.cat.drop(p.f, s); err != nil {
			p.addErr(err)
		}
	case *ddl.AlterTable:
		p.alterTable(s)
	case *ddl.AlterView:
		p.alterView(s)
	case *ddl.Insert:
		p.insert(s, explain, false)
	case *ddl.StatementSet:
		first := len(p.plan.Inserts)
		p.sets++
		for _, ins := range s.Inserts {
			p.insert(ins, explain, true)
		}
		for _, ins := range p.plan.Inserts[first:] {
			ins.StatementSet = p.sets
		}
	case *ddl.QueryStatement:
		p.query(s, explain)
	case *ddl.Describe:
		p.describe(s, explain)
	case *ddl.Show:
		p.show(s, explain)
	case *ddl.Explain:
		p.statement(s.Statement, true)
	}
}

func (p *planner) createTable(s *ddl.CreateTable) {
	if s.AsQuery != nil {
		p.createTableAs(s)
		return
	}
	def := s
	if s.Like != nil {
		src, err := p.cat.lookupTable(p.f, s.Like.Source, "LIKE")
		if err != nil {
			p.fail(s.Name, err)
			return
		}
		if def, err = ddl.MergeLike(s, src.Def); err != nil {
			p.fail(s.Name, err)
			return
		}
	}
	if err := p.cat.addTable(p.f, def); err != nil {
		p.fail(s.Name, err)
		return
	}
	p.defined(s.Name)
}

// defined notes that a table or view name is defined now, after an
// earlier definition of it failed.
func (p *planner) defined(n ddl.ObjectName) {
	if id, err := p.cat.ident(n); err == nil {
		delete(p.failed, id)
	}
}

// createView checks the view's query, as Flink does at CREATE VIEW, and
// adds it to the catalog.
func (p *planner) createView(s *ddl.CreateView) {
	err := p.f.refuseQuery(s.Query)
	var rel *relation
	if err == nil {
		// A ranking view is planned where a query reads it (rank.go).
		p.allowRanked = true
		rel, err = p.resolveQuery(s.Query, 1)
	}
	if err == nil {
		_, err = p.renameColumns(rel, s.Columns, s.Pos)
	}
	if err == nil {
		err = p.cat.addView(p.f, s)
	}
	if err == nil {
		p.defined(s.Name)
	}
	if err != nil {
		if p.dependsOnFailed(err) || err == errReported {
			if id, ierr := p.cat.ident(s.Name); ierr == nil && !p.cat.exists(id) {
				p.failed[id] = true
			}
			return
		}
		p.fail(s.Name, err)
	}
}

// fail records err (unless it only repeats an earlier error) and marks the
// table name as failed, so that statements using it do not report it as
// unknown too.
func (p *planner) fail(n ddl.ObjectName, err error) {
	p.addErr(err)
	if id, ierr := p.cat.ident(n); ierr == nil && !p.cat.exists(id) {
		p.failed[id] = true
	}
}

// applyFailure takes note of a statement that did not parse, before the
// statements after it are planned, so that errors that are only its
// consequences are not reported (see "Errors" in the package
// documentation).
func (p *planner) applyFailure(f ddl.Failure) {
	if f.Statement != nil {
		return // only its ';' is missing; the statement was planned
	}
	var id Identifier
	named := false
	if len(f.Name.Parts) > 0 {
		var err error
		id, err = p.cat.ident(f.Name)
		named = err == nil
	}
	switch f.Kind {
	case ddl.KindCreateTable, ddl.KindCreateView:
		if !named {
			p.anyCreateFailed = true
		} else if !p.cat.exists(id) {
			p.failed[id] = true
		}
	case ddl.KindCreate, ddl.KindUnknown:
		p.anyCreateFailed = true
		if f.Kind == ddl.KindUnknown {
			p.anyDropFailed = true
		}
	case ddl.KindDrop:
		if named {
			p.dropFailed[id] = true
		} else {
			p.anyDropFailed = true
		}
	}
}

// dependsOnFailed reports whether err is an unknown-name error about a
// table whose definition already failed (in planning or parsing), or a
// duplicate-name error about a table whose DROP did not parse.
func (p *planner) dependsOnFailed(err error) bool {
	var pe *Error
	if !errors.As(err, &pe) {
		return false
	}
	switch {
	case errors.Is(pe.Err, ErrUnknownName):
		if p.anyCreateFailed {
			var uf *expr.UnknownFunctionError
			if pe.unknownObject != nil || errors.As(pe.Cause, &uf) {
				return true
			}
		}
		// An unknown column, say, is an error of its own.
		return pe.unknownObject != nil && p.failed[*pe.unknownObject]
	case errors.Is(pe.Err, ErrDuplicateName) && pe.duplicateObject != nil:
		return p.anyDropFailed || p.dropFailed[*pe.duplicateObject]
	}
	return false
}

// sortedErrors returns the errors in source order: those without a
// position (from --set, or about the whole file) first, then by line and
// column; errors at the same place keep the order they were found in.
func (p *planner) sortedErrors() ErrorList {
	slices.SortStableFunc(p.errs, func(a, b error) int {
		pa, pb := errorPos(a), errorPos(b)
		if pa.Line != pb.Line {
			return pa.Line - pb.Line
		}
		return pa.Column - pb.Column
	})
	return p.errs
}

// errorPos returns where err points in the file; the zero Pos if nowhere.
func errorPos(err error) ddl.Pos {
	var de *ddl.Error
	if errors.As(err, &de) {
		return ddl.Pos{Offset: de.Offset, Line: de.Line, Column: de.Column}
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Pos
	}
	return ddl.Pos{}
}

// errReported is returned for a table whose options already failed
// validation in an earlier statement: the error is not repeated.
var errReported = errors.New("reported already")

func (p *planner) addErr(err error) {
	if err == errReported || p.dependsOnFailed(err) {
		return
	}
	// The same table's options may fail in two roles (the sink of an
	// INSERT whose query failed, and a source later) with one text.
	msg := err.Error()
	if slices.ContainsFunc(p.errs, func(e error) bool { return e.Error() == msg }) {
		return
	}
	p.errs = append(p.errs, err)
}

func (p *planner) insert(s *ddl.Insert, explain, inSet bool) {
	t, err := p.cat.lookupTable(p.f, s.Target, "INSERT INTO")
	if err != nil {
		p.addErr(err)
		return
	}
	if len(s.OtherHints) > 0 {
		p.addErr(p.f.hintRefusal(s.OtherHints[0]))
		return
	}
	if err := p.f.refuseQuery(s.Query); err != nil {
		p.addErr(err)
		return
	}
	rel, err := p.resolveQuery(s.Query, 0)
	if err != nil {
		p.addErr(err)
		// The sink's own option errors are reported too, with the
		// query's, not after the query is fixed.
		if _, serr := p.newSink(t, s); serr != nil {
			p.addErr(serr)
		}
		return
	}
	p.insertResolved(s, t, rel, explain, inSet)
}

// createTableAs plans CREATE TABLE ... AS query (CTAS), and REPLACE TABLE
// and CREATE OR REPLACE TABLE ... AS query (RTAS), as Flink does: a table
// whose columns are the query's output columns (names and types,
// nullability included; a repeated name gets a number, id0) and whose
// options are the statement's, and an INSERT of the query's rows into it.
// IF NOT EXISTS over an existing table plans only the INSERT. A replaced
// table's new definition holds for the statements after it (an INSERT
// before it keeps writing the old one, as a Flink job submitted before
// it does); the query reads the tables as they were before it.
func (p *planner) createTableAs(s *ddl.CreateTable) {
	ins := &ddl.Insert{Pos: s.Pos, Target: s.Name, Query: s.AsQuery}
	id, err := p.cat.ident(s.Name)
	if err != nil {
		p.fail(s.Name, p.f.errorAt(s.Name.Pos, ErrUnknownName, nil, err.Error()))
		return
	}
	_, isTable := p.cat.Table(id)
	switch {
	case s.IfNotExists && p.cat.exists(id):
		p.insert(ins, false, false)
		return
	case s.Replace != ddl.NoReplace && !isTable && p.cat.exists(id):
		p.fail(s.Name, p.f.errorAt(s.Name.Pos, ErrUnknownName, nil, fmt.Sprintf("'%s' is a view; %s TABLE replaces a table", id.Short(), s.Replace)))
		return
	case s.Replace == ddl.ReplaceExisting && !isTable:
		p.fail(s.Name, p.f.errorAt(s.Name.Pos, ErrUnknownName, nil, fmt.Sprintf("table '%s' to replace does not exist%s; CREATE OR REPLACE TABLE creates it",
			id.Short(), didYouMean(id.Short(), p.cat.Names()))))
		return
	}
	if err := p.f.refuseQuery(s.AsQuery); err != nil {
		p.fail(s.Name, err)
		return
	}
	rel, err := p.resolveQuery(s.AsQuery, 0)
	if err != nil {
		p.fail(s.Name, err)
		return
	}
	var cols []ddl.QueryColumn
	used := map[string]bool{}
	for i, n := range rel.names {
		// Two output columns of one name (a.id, b.id) are id and id0, as
		// Flink's validator names them.
		for k := 0; used[n]; k++ {
			n = fmt.Sprintf("%s%d", rel.names[i], k)
		}
		used[n] = true
		cols = append(cols, ddl.QueryColumn{Name: n, Type: rel.types[i]})
		ins.Columns = append(ins.Columns, ddl.Ident{Pos: s.AsPos, Name: n})
	}
	def, err := ddl.MergeAs(s, cols)
	if err != nil {
		if de := (*ddl.Error)(nil); errors.As(err, &de) {
			// The column list does not fit the query: no syntax error.
			err = p.f.errorAt(errorPos(de), ErrType, nil, de.Message)
		}
		p.fail(s.Name, err)
		return
	}
	if s.Replace != ddl.NoReplace && isTable {
		delete(p.cat.tables, id)
	}
	if err := p.cat.addTable(p.f, def); err != nil {
		p.fail(s.Name, err)
		return
	}
	p.defined(s.Name)
	t, err := p.cat.lookupTable(p.f, s.Name, "CREATE TABLE ... AS")
	if err != nil {
		p.addErr(err)
		return
	}
	p.insertResolved(ins, t, rel, false, false)
}

// insertResolved plans INSERT s of the resolved query rel into table t.
func (p *planner) insertResolved(s *ddl.Insert, t *Table, rel *relation, explain, inSet bool) {
	sink, err := p.newSink(t, s)
	if err != nil {
		p.addErr(err)
		return
	}
	ins := &Insert{Pos: s.Pos, Statement: "INSERT INTO " + t.ID.Short(), Sink: sink, Explain: explain, InStatementSet: inSet}
	if err := p.connect(ins, rel, s); err != nil {
		p.addErr(err)
		return
	}
	p.plan.Inserts = append(p.plan.Inserts, ins)
}

func (p *planner) query(s *ddl.QueryStatement, explain bool) {
	if err := p.f.refuseQuery(s.Query); err != nil {
		p.addErr(err)
		return
	}
	rel, err := p.resolveQuery(s.Query, 0)
	if err != nil {
		p.addErr(err)
		return
	}
	ins := printed(s.Pos, "SELECT", rel.names, rel.types, explain)
	for _, b := range rel.branches {
		fl := &Flow{Source: b.src, Unnest: b.unnest, Filter: and(b.filters), Names: rel.names}
		for i, c := range b.cols {
			e, err := expr.AssignTo(c, rel.types[i])
			if err != nil {
				p.addErr(p.f.errorAt(s.Pos, ErrType, err, err.Error()))
				return
			}
			fl.Projection = append(fl.Projection, e)
		}
		if !p.addPrintedFlow(ins, fl, rel.pos, s.Pos) {
			return
		}
	}
	p.plan.Inserts = append(p.plan.Inserts, ins)
}

// printed returns the pipeline of a statement whose rows are printed (a
// bare query, DESCRIBE, SHOW), without flows, into a print sink of columns
// names of colTypes; what names the statement.
func printed(pos ddl.Pos, what string, names []string, colTypes []types.Type, explain bool) *Insert {
	sink := &Sink{Pos: pos, Print: true, Changelog: factory.AllKinds, DeliveryGuarantee: string(factory.AtLeastOnce)}
	for i, n := range names {
		sink.Fields = append(sink.Fields, types.Field{Name: n, Type: colTypes[i]})
	}
	return &Insert{Pos: pos, Statement: what + " (printed)", Sink: sink, Explain: explain}
}

// addPrintedFlow adds flow fl to ins, a printed statement's pipeline, once
// it compiles (colPos: where its columns come from, for errors) and its
// changelog is known; it reports false when it recorded an error instead.
func (p *planner) addPrintedFlow(ins *Insert, fl *Flow, colPos []ddl.Pos, at ddl.Pos) bool {
	if err := p.checkCompiles(fl, colPos, at); err != nil {
		p.addErr(err)
		return false
	}
	fl.ReadFields, fl.ReadRows = readFields(fl)
	if err := p.sinkChangelog(ins, fl, nil); err != nil {
		p.addErr(err)
		return false
	}
	ins.Flows = append(ins.Flows, fl)
	return true
}

// sinkWatermarks has the sources of the pipelines of a sink that acts on
// event time (factory.TableInfo.NeedsWatermarks) generate their
// WATERMARK's watermarks, which otherwise only event-time operators ask
// for. Such a pipeline runs as a graph of tasks.
func (p *planner) sinkWatermarks() {
	for _, ins := range p.plan.Inserts {
		if ins.Sink.Print || !ins.Sink.Info.NeedsWatermarks {
			continue
		}
		for _, fl := range ins.Flows {
			src := fl.Source
			if src.Table == nil || src.watermark == nil {
				continue
			}
			src.Watermark = src.watermark
		}
	}
}

func and(filters []expr.Expr) expr.Expr {
	switch len(filters) {
	case 0:
		return nil
	case 1:
		return filters[0]
	}
	r, err := expr.Resolve(expr.Fn("AND", filters...))
	if err != nil {
		// Every filter is BOOLEAN; AND of BOOLEANs always resolves.
		return filters[0]
	}
	return r
}

// connect maps the query's columns onto the sink's (with the INSERT's
// column list), type-checks each assignment and checks changelog modes.
func (p *planner) connect(ins *Insert, rel *relation, s *ddl.Insert) error {
	sink := ins.Sink
	cols, _ := p.sinkColumns(sink.Table)
	static, err := p.staticPartition(sink, cols, s)
	if err != nil {
		return err
	}
	nStatic := len(s.Partition)
	// target[i] is the query column written to sink column i, or -1.
	target := make([]int, len(cols))
	if len(s.Columns) == 0 {
		if len(rel.names) != len(cols)-nStatic {
			given := ""
			if nStatic > 0 {
				given = fmt.Sprintf(" besides the %d its PARTITION gives", nStatic)
			}
			return p.f.errorAt(s.Pos, ErrType, nil, fmt.Sprintf(
				"the query has %d columns but table '%s' has %d writable columns%s\n  query: %s\n  sink:  %s",
				len(rel.names), sink.Name(), len(cols)-nStatic, given, describeColumns(rel.names, rel.types), describeSink(cols)))
		}
		q := 0
		for i := range target {
			target[i] = -1
			if static[i] == nil {
				target[i], q = q, q+1
			}
		}
	} else {
		for i := range target {
			target[i] = -1
		}
		if len(s.Columns) != len(rel.names) {
			return p.f.errorAt(s.Pos, ErrType, nil, fmt.Sprintf("the INSERT names %d columns but the query has %d\n  query: %s",
				len(s.Columns), len(rel.names), describeColumns(rel.names, rel.types)))
		}
		for qi, c := range s.Columns {
			idx := slices.IndexFunc(cols, func(col *ddl.Column) bool { return col.Name == c.Name })
			if idx < 0 {
				names := make([]string, len(cols))
				for i, col := range cols {
					names[i] = col.Name
				}
				return p.f.errorAt(c.Pos, ErrUnknownName, nil, fmt.Sprintf("table '%s' has no writable column '%s'; writable columns are %s%s",
					sink.Name(), c.Name, strings.Join(names, ", "), didYouMean(c.Name, names)))
			}
			if target[idx] >= 0 {
				return p.f.errorAt(c.Pos, ErrDuplicateName, nil, fmt.Sprintf("column '%s' is listed twice", c.Name))
			}
			if static[idx] != nil {
				return p.f.errorAt(c.Pos, ErrDuplicateName, nil, fmt.Sprintf("column '%s' is in the INSERT's PARTITION and in its column list", c.Name))
			}
			target[idx] = qi
		}
		for i, col := range cols {
			if target[i] < 0 && static[i] == nil && col.Type.NotNull {
				return p.f.errorAt(s.Pos, ErrType, nil, fmt.Sprintf("column '%s' of table '%s' is %s and not in the INSERT's column list, so it would be NULL",
					col.Name, sink.Name(), col.Type))
			}
		}
	}
	for _, b := range rel.branches {
		if b.src.Node == nil && !sink.Changelog.Accepts(b.src.Changelog) {
			return p.f.errorAt(s.Pos, ErrInvalidTable, nil, fmt.Sprintf(
				"table '%s' (connector '%s') accepts only %s rows, but source '%s' (connector '%s') produces updates and deletes: %s; write to a sink that accepts them: upsert-kafka, or jdbc with a PRIMARY KEY",
				sink.Name(), sink.Connector(), sink.Changelog, b.src.Name(), b.src.Connector(), b.src.Changelog))
		}
		fl := &Flow{Source: b.src, Unnest: b.unnest, Filter: and(b.filters), Names: rel.names, SinkName: sink.Name(), DropNulls: p.plan.NotNullDrop}
		projPos := make([]ddl.Pos, len(cols))
		for i, col := range cols {
			if static[i] != nil {
				fl.Projection = append(fl.Projection, static[i])
				continue
			}
			if target[i] < 0 {
				fl.Projection = append(fl.Projection, expr.Lit(col.Type, types.Value{}))
				continue
			}
			projPos[i] = s.Pos
			if target[i] < len(rel.pos) && rel.pos[target[i]].IsValid() {
				projPos[i] = rel.pos[target[i]]
			}
			e, err := expr.AssignTo(b.cols[target[i]], col.Type)
			var ae *expr.AssignmentError
			if errors.As(err, &ae) && ae.NotNull {
				// Accepted as Flink does: each row is checked when it is
				// written (table.exec.sink.not-null-enforcer).
				if e, err = expr.AssignTo(b.cols[target[i]], col.Type.Nullable()); err == nil {
					fl.NotNull = append(fl.NotNull, len(fl.Projection))
					fl.NotNullNames = append(fl.NotNullNames, col.Name)
				}
			}
			if err != nil {
				qn := rel.names[target[i]]
				pos := s.Pos
				if target[i] < len(rel.pos) && rel.pos[target[i]].IsValid() {
					pos = rel.pos[target[i]]
				}
				return p.f.errorAt(pos, ErrType, err, fmt.Sprintf(
					"query column '%s' (%s) cannot be written to column '%s' (%s) of table '%s': %v\n  query: %s\n  sink:  %s",
					qn, b.cols[target[i]].Type(), col.Name, col.Type, sink.Name(), err,
					describeColumns(rel.names, rel.types), describeSink(cols)))
			}
			if w := sink.Fields[i].Type; !w.Equal(col.Type) {
				// A metadata column written with the connector's type.
				if e, err = expr.Resolve(expr.CastTo(e, w)); err != nil {
					return p.f.errorAt(col.Pos, ErrType, err, fmt.Sprintf("metadata column '%s' of table '%s' is %s, which cannot be cast to %s, the type of the connector's '%s'",
						col.Name, sink.Name(), col.Type, w, col.Key()))
				}
			}
			fl.Projection = append(fl.Projection, e)
		}
		if err := p.checkCompiles(fl, projPos, s.Pos); err != nil {
			return err
		}
		fl.ReadFields, fl.ReadRows = readFields(fl)
		if err := p.sinkChangelog(ins, fl, cols); err != nil {
			return err
		}
		ins.Flows = append(ins.Flows, fl)
	}
	return nil
}

// staticPartition returns the constants of s's static partition spec,
// PARTITION (date = '2019-08-30', ...), by sink column (nil where none):
// each a partition column of the sink (PARTITIONED BY) given once, its
// literal converted to the column's type as an INSERT converts a value
// (then by CAST, as Flink converts a partition spec's text).
func (p *planner) staticPartition(sink *Sink, cols []*ddl.Column, s *ddl.Insert) ([]expr.Expr, error) {
	static := make([]expr.Expr, len(cols))
	for _, pv := range s.Partition {
		name := pv.Column.Name
		if !slices.Contains(sink.Table.Schema.PartitionKeys, name) {
			keys := "it has none"
			if pk := sink.Table.Schema.PartitionKeys; len(pk) > 0 {
				keys = "they are " + strings.Join(pk, ", ")
			}
			return nil, p.f.errorAt(pv.Column.Pos, ErrUnknownName, nil, fmt.Sprintf(
				"'%s' is not a partition column of table '%s' (PARTITIONED BY); %s", name, sink.Name(), keys))
		}
		idx := slices.IndexFunc(cols, func(c *ddl.Column) bool { return c.Name == name })
		if idx < 0 {
			return nil, p.f.errorAt(pv.Column.Pos, ErrUnknownName, nil, fmt.Sprintf("table '%s' has no writable column '%s'", sink.Name(), name))
		}
		if static[idx] != nil {
			return nil, p.f.errorAt(pv.Column.Pos, ErrDuplicateName, nil, fmt.Sprintf("partition column '%s' is given twice", name))
		}
		lit, err := (&lowerer{f: p.f}).lower(pv.Value)
		if err != nil {
			return nil, err
		}
		t := cols[idx].Type
		e, err := expr.AssignTo(lit, t)
		if err != nil {
			if e, err = expr.Resolve(expr.CastTo(lit, t)); err != nil {
				return nil, p.f.errorAt(pv.Value.Position(), ErrType, err, fmt.Sprintf("the value of partition column '%s' cannot be converted to its type %s: %v", name, t, err))
			}
		}
		static[idx] = e
	}
	return static, nil
}

// checkCompiles compiles fl's filter and projection as the run does, so
// that what only compiling rejects (a constant argument that does not
// parse: a date format, a JSON path) is an error of the statement, with
// the position of its column (pos[i] for projection i; at for the filter
// and where pos has none), in validate and explain too, instead of a
// failure of the run without one.
func (p *planner) checkCompiles(fl *Flow, pos []ddl.Pos, at ddl.Pos) error {
	opts, err := p.plan.ExprOptions()
	if err != nil {
		// An invalid table.local-time-zone is reported with the settings;
		// the zone does not decide whether an expression compiles.
		opts = expr.Options{}
	}
	if fl.Filter != nil {
		if _, err := expr.CompileFilter(fl.Filter, opts); err != nil {
			return p.f.errorAt(at, ErrType, err, fmt.Sprintf("the WHERE condition %s: %v", fl.Filter, err))
		}
	}
	for i, e := range fl.Projection {
		if _, err := expr.Compile(e, opts); err != nil {
			where := at
			if i < len(pos) && pos[i].IsValid() {
				where = pos[i]
			}
			return p.f.errorAt(where, ErrType, err, err.Error())
		}
	}
	return nil
}

func describeColumns(names []string, ts []types.Type) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + ts[i].String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func describeSink(cols []*ddl.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.Type.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// maskSecrets replaces the values of sensitive options (declared
// sensitive by a factory, or with a secret-looking key) in the source
// lines and messages of the errors.
func (p *planner) maskSecrets(stmts []ddl.Statement) {
	if len(p.errs) == 0 {
		return
	}
	var secrets []string
	collect := func(opts []ddl.Option) {
		m := make(map[string]string, len(opts))
		for _, o := range opts {
			m[o.Key] = o.Value
		}
		for _, kv := range factory.MaskedOptions(m, p.reg) {
			if kv.Value == option.Mask && m[kv.Key] != option.Mask && m[kv.Key] != "" {
				secrets = append(secrets, m[kv.Key])
			}
		}
	}
	var statement func(s ddl.Statement)
	statement = func(s ddl.Statement) {
		switch s := s.(type) {
		case *ddl.CreateTable:
			collect(s.Options)
		case *ddl.Insert:
			collect(s.Hints)
			tableNames(s.Query, func(t *ddl.TableName) { collect(t.Hints) })
		case *ddl.CreateView:
			tableNames(s.Query, func(t *ddl.TableName) { collect(t.Hints) })
		case *ddl.AlterView:
			if s.Query != nil {
				tableNames(s.Query, func(t *ddl.TableName) { collect(t.Hints) })
			}
		case *ddl.QueryStatement:
			tableNames(s.Query, func(t *ddl.TableName) { collect(t.Hints) })
		case *ddl.StatementSet:
			for _, in := range s.Inserts {
				statement(in)
			}
		case *ddl.Explain:
			statement(s.Statement)
		}
	}
	for _, s := range stmts {
		statement(s)
	}
	for _, h := range p.refHints {
		collect(h)
	}
	for _, name := range slices.Sorted(maps.Keys(p.hints)) {
		var opts []ddl.Option
		for _, k := range slices.Sorted(maps.Keys(p.hints[name])) {
			opts = append(opts, ddl.Option{Key: k, Value: p.hints[name][k]})
		}
		collect(opts)
	}
	if len(secrets) == 0 {
		return
	}
	// In the source line a value is quoted as written (quotes doubled);
	// messages quote it in other ways or not at all.
	quoted := make([]string, len(secrets))
	for i, sec := range secrets {
		quoted[i] = "'" + strings.ReplaceAll(sec, "'", "''") + "'"
	}
	for _, err := range p.errs {
		var pe *Error
		if errors.As(err, &pe) {
			col := pe.Pos.Column
			if pe.ExcerptColumn > 0 {
				col = pe.ExcerptColumn
			}
			pe.Excerpt, col = secret.MaskLine(pe.Excerpt, col, quoted, p.reg.IsSensitive)
			if col != pe.Pos.Column {
				pe.ExcerptColumn = col
			}
			for _, sec := range secrets {
				pe.Message = strings.ReplaceAll(pe.Message, sec, option.Mask)
			}
		}
	}
}

// tableNames calls fn for every table name q reads, in subqueries, joins,
// table function arguments and subquery expressions too: the OPTIONS
// hints of a query the planner refused (so never resolved) may hold
// secrets as well.
func tableNames(q ddl.Query, fn func(*ddl.TableName)) {
	var expr func(e ddl.Expr)
	var ref func(r ddl.TableRef)
	var query func(q ddl.Query)
	expr = func(e ddl.Expr) {
		ddl.Walk(e, func(x ddl.Expr) bool {
			switch x := x.(type) {
			case *ddl.ScalarSubquery:
				query(x.Query)
			case *ddl.Exists:
				query(x.Query)
			case *ddl.InQuery:
				query(x.Query)
			case *ddl.Quantified:
				query(x.Query)
			}
			return true
		})
	}
	ref = func(r ddl.TableRef) {
		switch r := r.(type) {
		case *ddl.TableName:
			fn(r)
			expr(r.SystemTime)
		case *ddl.Subquery:
			query(r.Query)
		case *ddl.Join:
			ref(r.Left)
			ref(r.Right)
			expr(r.On)
		case *ddl.TableFunc:
			for _, a := range r.Args {
				if a.Table != nil && a.Table.Query != nil {
					query(a.Table.Query)
				}
				expr(a.Expr)
			}
		case *ddl.Unnest:
			for _, e := range r.Exprs {
				expr(e)
			}
		}
	}
	query = func(q ddl.Query) {
		switch q := q.(type) {
		case *ddl.Select:
			for _, it := range q.Items {
				expr(it.Expr)
			}
			if q.From != nil {
				ref(q.From)
			}
			expr(q.Where)
			expr(q.Having)
			if q.GroupBy != nil {
				var group func(items []ddl.GroupItem)
				group = func(items []ddl.GroupItem) {
					for _, g := range items {
						expr(g.Expr)
						group(g.Items)
					}
				}
				group(q.GroupBy.Items)
			}
		case *ddl.SetOp:
			query(q.Left)
			query(q.Right)
		case *ddl.Values:
			for _, r := range q.Rows {
				for _, e := range r {
					expr(e)
				}
			}
		case *ddl.With:
			for _, c := range q.CTEs {
				query(c.Query)
			}
			query(q.Body)
		case *ddl.OrderBy:
			query(q.Query)
		}
	}
	query(q)
}

// checkExclusive rejects two sinks of the job that claim the same
// exclusive resource (factory.Exclusive), such as two exactly-once Kafka
// sinks with one transactional-id prefix (also the same table written by
// two INSERTs): they would interfere with each other.
func (p *planner) checkExclusive() {
	type claim struct {
		ins *Insert
		ex  factory.Exclusive
	}
	seen := map[string]claim{}
	for _, ins := range p.plan.Inserts {
		s := ins.Sink
		if ins.Explain {
			continue
		}
		for _, ex := range s.Info.Exclusive {
			first, dup := seen[ex.Key]
			if !dup {
				seen[ex.Key] = claim{ins, ex}
				continue
			}
			what := fmt.Sprintf("%s sinks '%s' (line %d) and '%s' have the same %s",
				ex.Owner, first.ins.Sink.Name(), first.ins.Pos.Line, s.Name(), ex.What)
			fix := ex.Fix
			if first.ins.Sink.Table == s.Table {
				what = fmt.Sprintf("%s table '%s' is written by two INSERTs (lines %d and %d), whose sinks would share the %s",
					ex.Owner, s.Name(), first.ins.Pos.Line, ins.Pos.Line, ex.What)
				fix = ex.FixSameTable
			}
			p.errs = append(p.errs, p.f.errorAt(ins.Pos, ErrInvalidTable, nil, what+": "+ex.Conflict+"; "+fix))
		}
	}
}

// withHints returns the table's options with hints applied: the OPTIONS
// hints of the statement, then the program's (Options.Hints).
func (p *planner) withHints(t *Table, hints []ddl.Option) map[string]string {
	opts := t.Options()
	for _, h := range hints {
		opts[h.Key] = h.Value
	}
	if h, ok := p.hints[t.ID.Short()]; ok {
		maps.Copy(opts, h)
		p.hinted[t.ID.Short()] = true
	}
	return opts
}

// optionPos returns the position of key in hints or the table's WITH
// clause (its value when value is set), else the table's name.
func optionPos(t *Table, hints []ddl.Option, key string, value bool) ddl.Pos {
	for _, list := range [][]ddl.Option{hints, t.Def.Options} {
		for _, o := range list {
			if o.Key == key {
				if value {
					return o.ValuePos
				}
				return o.KeyPos
			}
		}
	}
	return t.Def.Name.Pos
}

func (p *planner) newSource(t *Table, ref *ddl.TableName, rowTypes []types.Type) (*Source, error) {
	opts := p.withHints(t, ref.Hints)
	schema := p.connectorSchema(t, false)
	v, info, err := p.validateTable(t, ref.Hints, opts, schema, factory.AsSource)
	if err != nil {
		return nil, err
	}
	src := &Source{Pos: ref.Pos, Table: t, Options: opts, Schema: schema, RowTypes: rowTypes, Validated: v, Info: info}
	if f, ok := p.factoryOf(t.Connector()); ok {
		src.Changelog = f.SourceChangelog
	}
	if src.Changelog == factory.InsertOnly {
		src.Changelog = p.formatChangelog(v)
	}
	for _, w := range info.Warnings {
		p.warn(ref.Pos, t, ref.Hints, w)
	}
	return src, nil
}

func (p *planner) newSink(t *Table, s *ddl.Insert) (*Sink, error) {
	cols, err := p.sinkColumns(t)
	if err != nil {
		return nil, err
	}
	opts := p.withHints(t, s.Hints)
	schema := p.connectorSchema(t, true)
	sink := &Sink{Pos: s.Pos, Table: t, Options: opts, Schema: schema}
	for i, c := range cols {
		sink.Fields = append(sink.Fields, types.Field{Name: c.Name, Type: schema.Columns[i].Type})
	}
	if pk := t.Def.PrimaryKey; pk != nil {
		for _, k := range pk.Columns {
			if i := slices.IndexFunc(cols, func(c *ddl.Column) bool { return c.Name == k.Name }); i >= 0 {
				sink.PrimaryKey = append(sink.PrimaryKey, i)
			}
		}
	}
	if f, ok := p.factoryOf(t.Connector()); ok {
		sink.Changelog = f.SinkChangelog
	}
	if sink.Changelog == factory.Upsert && len(sink.PrimaryKey) == 0 {
		// An upsert sink writes rows by key: without a PRIMARY KEY it
		// appends (jdbc), and takes inserts only, as Flink's does.
		sink.Changelog = factory.InsertOnly
	}
	v, info, err := p.validateTable(t, s.Hints, opts, schema, factory.AsSink)
	if err != nil {
		return nil, err
	}
	if len(info.DerivedOptions) > 0 {
		// The factory gets the derived options when it creates the sink,
		// and they are part of the table's validated options.
		if v, err = v.WithDerived(info.DerivedOptions); err != nil {
			return nil, p.tableError(t, s.Hints, "sink", err)
		}
		sink.Options = v.Table.Options
	}
	sink.Validated, sink.Info = v, info
	if sink.Changelog == factory.InsertOnly {
		sink.Changelog = p.formatChangelog(v)
	}
	sink.DeliveryGuarantee = string(info.Delivery)
	if info.Delivery == "" {
		sink.DeliveryGuarantee = string(factory.AtLeastOnce)
	}
	sink.hints = s.Hints
	return sink, nil
}

// warn adds a connector's warning about table t used at pos: shown at the
// option it names, else at the use.
func (p *planner) warn(pos ddl.Pos, t *Table, hints []ddl.Option, w factory.TableWarning) {
	if w.Key != "" {
		pos = optionPos(t, hints, w.Key, false)
	}
	p.plan.Warnings = append(p.plan.Warnings, Warning{Pos: pos, Kind: w.Kind, Message: w.Message})
}

// factoryOf returns the registered factory of a connector.
// formatChangelog returns the changelog mode of a validated table's value
// format ('format' or 'value.format'; a key format carries no row kinds):
// what a connector that is INSERT only itself, such as kafka, reads and
// writes with it (a debezium-json topic is a changelog).
func (p *planner) formatChangelog(v *factory.Validated) factory.ChangelogMode {
	m := factory.InsertOnly
	for _, kv := range v.Formats() {
		if strings.HasPrefix(kv.Key, "key.") {
			continue
		}
		if ff, ok := p.reg.Format(kv.Value); ok && ff.Changelog > m {
			m = ff.Changelog
		}
	}
	return m
}

func (p *planner) factoryOf(connectorID string) (*factory.ConnectorFactory, bool) {
	return p.reg.Connector(connectorID)
}

// jobContext is what factories are told about the job.
func (p *planner) jobContext() factory.JobContext {
	return p.plan.jobContext(p.settingsUnsure)
}

func (pl *Plan) jobContext(unsure bool) factory.JobContext {
	cp := pl.Runtime.Checkpoint
	if pl.shared == nil {
		pl.shared = &factory.JobShared{}
	}
	return factory.JobContext{
		Shared:             pl.shared,
		Name:               pl.JobName,
		CheckpointInterval: cp.Interval,
		CheckpointTimeout:  cp.Timeout,
		MinPause:           cp.MinPause,
		CheckpointMode:     cp.Mode.String(),
		CheckpointModeSet:  pl.CheckpointModeSet,
		CheckpointDir:      cp.Dir,
		SettingsUncertain:  unsure,
		ScaleOut:           pl.ScaleOut,
		InstanceID:         pl.InstanceID,
		S3:                 pl.Runtime.S3,
	}
}

// factoryTable is the factory's view of table t with options.
func (p *planner) factoryTable(t *Table, opts map[string]string, schema factory.Schema) factory.Table {
	ft := p.plan.factoryTable(t, schema, opts)
	ft.Job = p.jobContext()
	return ft
}

// validated is a cached validation of a table's options in a role.
type validated struct {
	v    *factory.Validated
	info factory.TableInfo
}

// validateTable validates a table's options with the factory and
// describes the table in role (factory.TableInfo), once per distinct set
// of options and role.
func (p *planner) validateTable(t *Table, hints []ddl.Option, opts map[string]string, schema factory.Schema, role factory.Role) (*factory.Validated, factory.TableInfo, error) {
	if f, ok := p.factoryOf(t.Connector()); ok && f.RequiresPrimaryKey && len(t.Schema.PrimaryKey) == 0 {
		return nil, factory.TableInfo{}, p.f.errorAt(t.Def.Name.Pos, ErrInvalidTable, nil, fmt.Sprintf(
			"table '%s' (connector '%s') needs a PRIMARY KEY (...) NOT ENFORCED: its key columns become the record key", t.ID.Short(), t.Connector()))
	}
	keys := slices.Sorted(maps.Keys(opts))
	var kb strings.Builder
	kb.WriteString(role.String() + "\x00" + t.ID.String())
	for _, k := range keys {
		kb.WriteString("\x00" + k + "=" + opts[k])
	}
	if c, ok := p.validate[kb.String()]; ok {
		if c == nil {
			return nil, factory.TableInfo{}, errReported
		}
		return c.v, c.info, nil
	}
	v, err := p.reg.Validate(p.factoryTable(t, opts, schema))
	if err == nil {
		if role == factory.AsSource {
			if f, ok := p.reg.Connector(t.Connector()); ok && f.NewSource == nil {
				err = &factory.CapabilityError{Connector: t.Connector(), Wanted: "source"}
			}
		} else if f, ok := p.reg.Connector(t.Connector()); ok && f.NewSink == nil {
			err = &factory.CapabilityError{Connector: t.Connector(), Wanted: "sink"}
		}
	}
	var info factory.TableInfo
	if err == nil {
		info, err = v.Describe(role)
		var oe *factory.OptionError
		if errors.As(err, &oe) {
			p.validate[kb.String()] = nil
			return nil, info, p.f.errorAt(optionPos(t, hints, oe.Key, true), ErrInvalidTable, err, oe.Message)
		}
	}
	if err != nil {
		p.validate[kb.String()] = nil
		return nil, info, p.tableError(t, hints, role.String(), err)
	}
	p.validate[kb.String()] = &validated{v, info}
	for _, w := range v.Warnings {
		p.plan.Warnings = append(p.plan.Warnings, Warning{Pos: optionPos(t, hints, w.Key, false), Kind: w.Kind,
			Message: fmt.Sprintf("table '%s': %s", t.ID.Short(), w.Message)})
	}
	return v, info, nil
}

// tableError turns a factory error into a positioned *Error: at the first
// option it names, with "not supported yet" for Flink connectors and
// formats streamsql does not have.
func (p *planner) tableError(t *Table, hints []ddl.Option, role string, err error) error {
	var uf *factory.UnknownFactoryError
	if errors.As(err, &uf) {
		what := "format"
		if uf.Key == factory.ConnectorKey {
			what = "connector"
		}
		if uf.NotYet {
			return p.f.errorAt(optionPos(t, hints, uf.Key, true), ddl.ErrUnsupported, err,
				fmt.Sprintf("%s '%s' of table '%s' is not supported yet; available: %s", what, uf.Identifier, t.ID.Short(), strings.Join(uf.Available, ", ")))
		}
	}
	var ce *factory.CapabilityError
	if errors.As(err, &ce) {
		return p.f.errorAt(optionPos(t, hints, factory.ConnectorKey, true), ErrInvalidTable, err,
			fmt.Sprintf("table '%s' cannot be used as a %s: %v", t.ID.Short(), role, err))
	}
	pos := t.Def.Name.Pos
	if key := firstKey(err); key != "" {
		pos = optionPos(t, hints, key, false)
	}
	msg := err.Error()
	var te *factory.TableError
	if !errors.As(err, &te) {
		msg = fmt.Sprintf("invalid options for table '%s': %v", t.ID.Short(), err)
	}
	return p.f.errorAt(pos, ErrInvalidTable, err, msg)
}

// firstKey returns the first option key a factory error names.
func firstKey(err error) string {
	var (
		uo *option.UnsupportedOptionsError
		iv *option.InvalidValueError
		co *option.ConflictError
		rq *option.RequirementError
		ru *option.RuleError
		uf *factory.UnknownFactoryError
	)
	switch {
	case errors.As(err, &uo) && len(uo.Keys) > 0:
		return uo.Keys[0]
	case errors.As(err, &iv):
		return iv.Key
	case errors.As(err, &uf):
		return uf.Key
	case errors.As(err, &co) && len(co.Keys) > 0:
		return co.Keys[0]
	case errors.As(err, &rq) && len(rq.Keys) > 0:
		return rq.Keys[0]
	case errors.As(err, &ru) && len(ru.Keys) > 0:
		return ru.Keys[0]
	}
	return ""
}

// assignIDs names the stateful operators of every INSERT
// ("<pipeline>/<kind>-<n>", n counting the INSERT's operators, inputs
// first): the ids key their state in checkpoints, so they stay the same
// as long as the statement's shape does.
func (pl *Plan) assignIDs() {
	names := pl.PipelineNames()
	i := 0
	for _, ins := range pl.Inserts {
		name := "explain"
		if !ins.Explain {
			name = names[i]
			i++
		}
		for k, n := range ins.Nodes() {
			n.ID = fmt.Sprintf("%s/%s-%d", name, strings.ToLower(n.Kind.String()), k+1)
		}
	}
}

// dropFunction unbinds the function DROP FUNCTION names, for the
// statements after it: a call of it is then an unknown function, as in
// Flink. A name no function has is an error, unless IF EXISTS.
func (p *planner) dropFunction(s *ddl.Drop) {
	name := ""
	if n := len(s.Name.Parts); n > 0 {
		name = strings.ToUpper(s.Name.Parts[n-1].Name)
	}
	if p.f.funcs[name] == nil {
		if !s.IfExists {
			p.addErr(p.f.errorAt(s.Name.Pos, ErrUnknownName, nil, fmt.Sprintf(
				"function '%s' does not exist; DROP FUNCTION IF EXISTS drops it only when it does", strings.ToLower(name))))
		}
		return
	}
	delete(p.f.funcs, name)
}

// createFunction binds the name CREATE FUNCTION defines to the Go function
// registered under that name or under the statement's class
// (Options.Functions): streamsql runs no Java, Scala or Python code.
func (p *planner) createFunction(s *ddl.CreateFunction) {
	name := ""
	if n := len(s.Name.Parts); n > 0 {
		name = strings.ToUpper(s.Name.Parts[n-1].Name)
	}
	f := p.f.funcs[name]
	if f == nil {
		for _, g := range p.f.funcs {
			if slices.Contains(g.Classes, s.Class) {
				f = g
			}
		}
	}
	if f == nil || name == "" {
		// Functions it cannot define make later calls of them unknown:
		// those errors only follow from this one.
		p.anyCreateFailed = true
		p.addErr(p.f.errorAt(s.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
			"CREATE FUNCTION of a Java, Scala or Python class such as '%s' is not supported yet: streamsql runs Go functions; a program that embeds streamsql registers one named %s (or whose Classes list '%s') in job.Options.Functions",
			s.Class, strings.ToLower(name), s.Class)))
		return
	}
	p.f.funcs[name] = f
}
