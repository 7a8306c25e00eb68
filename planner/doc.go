// Package planner owns the catalog of tables and views, resolves names and
// types, compiles expressions, and produces the job plan that EXPLAIN prints.
package planner
