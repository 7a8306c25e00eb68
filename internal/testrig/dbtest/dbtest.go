// Package dbtest gives tests the real PostgreSQL and MariaDB servers that
// scripts/test.sh starts (scripts/pg.sh, scripts/mariadb.sh): their jdbc
// URLs and credentials from the environment, unique table names, and a
// connection for independent checks of what a sink wrote.
//
// With CI=true a test whose server is missing fails; otherwise it skips.
package dbtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Server is a database server for tests.
type Server struct {
	// Name is "postgresql" or "mariadb".
	Name string
	// URL is the server's jdbc URL (jdbc:postgresql://host:port/db or
	// jdbc:mariadb://host:port/db).
	URL      string
	User     string
	Password string
}

// The environment variables scripts/pg.sh and scripts/mariadb.sh export.
const (
	EnvPGURL         = "STREAMSQL_PG_URL"
	EnvPGUser        = "STREAMSQL_PG_USER"
	EnvPGPassword    = "STREAMSQL_PG_PASSWORD"
	EnvMySQLURL      = "STREAMSQL_MYSQL_URL"
	EnvMySQLUser     = "STREAMSQL_MYSQL_USER"
	EnvMySQLPassword = "STREAMSQL_MYSQL_PASSWORD"
)

func require(t testing.TB, name, urlEnv, userEnv, pwEnv, script string) Server {
	t.Helper()
	u := os.Getenv(urlEnv)
	if u == "" {
		msg := fmt.Sprintf("%s is not set: this test needs a real %s server. Run the tests with scripts/test.sh, "+
			"or start one with `eval \"$(scripts/%s start)\"`", urlEnv, name, script)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return Server{Name: name, URL: u, User: os.Getenv(userEnv), Password: os.Getenv(pwEnv)}
}

// PostgreSQL returns the PostgreSQL server.
func PostgreSQL(t testing.TB) Server {
	t.Helper()
	return require(t, "postgresql", EnvPGURL, EnvPGUser, EnvPGPassword, "pg.sh")
}

// MariaDB returns the MariaDB server.
func MariaDB(t testing.TB) Server {
	t.Helper()
	return require(t, "mariadb", EnvMySQLURL, EnvMySQLUser, EnvMySQLPassword, "mariadb.sh")
}

// All returns both servers.
func All(t testing.TB) []Server {
	t.Helper()
	return []Server{PostgreSQL(t), MariaDB(t)}
}

// IsPostgreSQL reports whether s is the PostgreSQL server.
func (s Server) IsPostgreSQL() bool { return s.Name == "postgresql" }

// Open connects to s with the drivers directly (not through the
// connector), for setting up tables and checking their contents; the
// connection is closed when the test ends.
func (s Server) Open(t testing.TB) *sql.DB {
	t.Helper()
	rest := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(s.URL, "jdbc:postgresql://"), "jdbc:mariadb://"), "jdbc:mysql://")
	addr, dbname, _ := strings.Cut(rest, "/")
	var db *sql.DB
	if s.IsPostgreSQL() {
		host, port, _ := strings.Cut(addr, ":")
		cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%s dbname=%s user=%s password=%s sslmode=disable", host, port, dbname, s.User, s.Password))
		if err != nil {
			t.Fatal(err)
		}
		db = stdlib.OpenDB(*cfg)
	} else {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = s.User, s.Password, "tcp", addr, dbname
		c, err := mysql.NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		db = sql.OpenDB(c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		t.Fatalf("%s server at %s does not answer: %v", s.Name, s.URL, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Table returns a table name unique to this test run: prefix and random
// hex.
func Table(prefix string) string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return prefix + "_" + hex.EncodeToString(b)
}

// Exec runs statements on db, failing the test on error.
func Exec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// StartPostgreSQL starts a PostgreSQL server of its own with scripts/pg.sh
// and the given settings (name=value, such as
// max_prepared_transactions=0), and stops it when the test ends. root is
// the repository's root. It skips (fails under CI=true) when PostgreSQL
// is not installed. Starting takes a few seconds.
func StartPostgreSQL(t testing.TB, root string, settings ...string) Server {
	t.Helper()
	args := []string{filepath.Join(root, "scripts", "pg.sh"), "start"}
	for _, s := range settings {
		args = append(args, "-c", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := fmt.Sprintf("scripts/pg.sh start: %v\n%s", err, stderr.String())
		if os.Getenv("CI") != "true" && strings.Contains(stderr.String(), "not installed") {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "="); ok {
			env[k] = v
		}
	}
	t.Cleanup(func() {
		_ = exec.Command("bash", filepath.Join(root, "scripts", "pg.sh"), "stop", env["STREAMSQL_PG_DIR"]).Run()
	})
	return Server{Name: "postgresql", URL: env[EnvPGURL], User: env[EnvPGUser], Password: env[EnvPGPassword]}
}
