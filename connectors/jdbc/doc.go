// Package jdbc is the 'jdbc' connector: it writes rows into PostgreSQL or
// MySQL/MariaDB tables and reads them with a bounded scan, with Flink's
// jdbc options. Importing it registers the connector in factory.Default.
//
// The types to learn first: [Sink] and its [Writer], which upsert by the
// PRIMARY KEY (or append) in batched statements; [TwoPhaseSink], the
// exactly-once sink whose writers prepare one database transaction per
// checkpoint (PostgreSQL PREPARE TRANSACTION, MySQL XA PREPARE), and its
// [Committer], which commits them and at recovery rolls back the sink's
// other prepared transactions (by the id prefix [GIDPrefix]); [Source], a
// bounded, optionally partitioned scan whose splits checkpoint the number
// of rows read. The [Dialect] holds what differs between the databases.
//
// docs/jdbc.md describes the behaviour for users; the tests run against
// real servers started by scripts/pg.sh and scripts/mariadb.sh (see
// internal/testrig/dbtest).
package jdbc
