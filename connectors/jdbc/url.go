package jdbc

import (
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// ErrConfig is wrapped by errors about the connector's options.
var ErrConfig = errors.New("invalid jdbc option")

// Database is a database server reached through a jdbc URL: its dialect,
// address and database name.
type Database struct {
	// Dialect is the SQL dialect: PostgreSQL or MySQL (MySQL and MariaDB).
	Dialect *Dialect
	// Host and Port are the server's address.
	Host string
	Port string
	// Name is the database (PostgreSQL: its name; MySQL: the default
	// schema).
	Name string
	// Params are the URL's query parameters passed to the driver.
	Params map[string]string
}

// Addr returns host:port.
func (d Database) Addr() string { return net.JoinHostPort(d.Host, d.Port) }

// pgParams are the URL parameters passed to PostgreSQL's driver (libpq
// names, which pgx understands); JDBC-only parameters are rejected.
var pgParams = []string{"sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout", "application_name", "options", "search_path"}

// mysqlParams maps the URL parameters accepted for MySQL/MariaDB.
var mysqlParams = []string{"tls", "timeout", "readTimeout", "writeTimeout", "charset", "collation"}

// ParseURL parses a jdbc URL: jdbc:postgresql://host[:port]/database,
// jdbc:mysql://host[:port]/database or jdbc:mariadb://host[:port]/database,
// with optional ?key=value parameters the Go driver understands.
func ParseURL(raw string) (Database, error) {
	var d Database
	rest, ok := strings.CutPrefix(strings.TrimSpace(raw), "jdbc:")
	if !ok {
		return d, fmt.Errorf("%w: url must start with jdbc:postgresql://, jdbc:mysql:// or jdbc:mariadb://", ErrConfig)
	}
	scheme, _, _ := strings.Cut(rest, "://")
	var allowed []string
	switch scheme {
	case "postgresql":
		d.Dialect, d.Port, allowed = postgres, "5432", pgParams
	case "mysql", "mariadb":
		d.Dialect, d.Port, allowed = mysqlDialect, "3306", mysqlParams
	default:
		// Name only the scheme: what follows it may hold credentials
		// (jdbc:oracle:thin:user/password@host), and naming the whole
		// URL would make the job's error masking hide the scheme too.
		if i := strings.IndexAny(scheme, ":/;?@"); i >= 0 {
			scheme = scheme[:i]
		}
		return d, fmt.Errorf("%w: url scheme 'jdbc:%s' is not supported; supported: jdbc:postgresql, jdbc:mysql, jdbc:mariadb", ErrConfig, scheme)
	}
	u, err := url.Parse(rest)
	if err != nil {
		return d, fmt.Errorf("%w: url does not parse: %v", ErrConfig, redactURLError(err))
	}
	if u.User != nil {
		return d, fmt.Errorf("%w: url must not hold credentials; use 'username' and 'password'", ErrConfig)
	}
	if u.Hostname() == "" {
		return d, fmt.Errorf("%w: url has no host", ErrConfig)
	}
	d.Host = u.Hostname()
	if p := u.Port(); p != "" {
		d.Port = p
	}
	d.Name = strings.TrimPrefix(u.Path, "/")
	if d.Name == "" || strings.Contains(d.Name, "/") {
		return d, fmt.Errorf("%w: url must name one database after the host: jdbc:%s://host:port/database", ErrConfig, scheme)
	}
	d.Params = map[string]string{}
	var bad []string
	for k, v := range u.Query() {
		if !slices.Contains(allowed, k) {
			bad = append(bad, k)
			continue
		}
		d.Params[k] = v[len(v)-1]
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return d, fmt.Errorf("%w: url parameter(s) %s not supported yet; supported: %s", ErrConfig, strings.Join(bad, ", "), strings.Join(allowed, ", "))
	}
	return d, nil
}

// redactURLError drops the URL text from a url.Error: it may hold a
// password someone wrote into it.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// CheckDriver checks a 'driver' option's class name against the URL's
// database: Flink loads that class; here it only has to agree.
func CheckDriver(d Database, class string) error {
	ok := map[string][]string{
		"postgresql": {"org.postgresql.Driver"},
		"mysql":      {"com.mysql.cj.jdbc.Driver", "com.mysql.jdbc.Driver", "org.mariadb.jdbc.Driver"},
	}[d.Dialect.Name]
	if !slices.Contains(ok, strings.TrimSpace(class)) {
		return fmt.Errorf("%w: driver '%s' does not match the url's database (%s); expected one of %s, or leave 'driver' unset",
			ErrConfig, class, d.Dialect.Product, strings.Join(ok, ", "))
	}
	return nil
}

// Open returns a connection pool to d as user with password. It does not
// connect: the first use does.
func (d Database) Open(user, password string) (*sql.DB, error) {
	switch d.Dialect {
	case postgres:
		// A libpq keyword/value string: pgx parses TLS settings and passes
		// the other parameters as the session's runtime parameters.
		kv := []string{"host=" + quoteLibpq(d.Host), "port=" + quoteLibpq(d.Port), "dbname=" + quoteLibpq(d.Name),
			"user=" + quoteLibpq(user), "password=" + quoteLibpq(password), "connect_timeout=10"}
		for k, v := range d.Params {
			kv = append(kv, k+"="+quoteLibpq(v))
		}
		cfg, err := pgx.ParseConfig(strings.Join(kv, " "))
		if err != nil {
			// pgx's message may quote the string, password included.
			return nil, fmt.Errorf("%w: the url's parameters are not valid for PostgreSQL", ErrConfig)
		}
		// The extended protocol without a prepared statement: one round
		// trip, parameters typed by their Go type (decimals, dates and
		// times go as text with a cast in the statement, see
		// Dialect.typedPlaceholder).
		cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
		return stdlib.OpenDB(*cfg), nil
	default:
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = user, password, "tcp", d.Addr(), d.Name
		cfg.InterpolateParams = true
		cfg.ParseTime = true
		cfg.Loc = time.UTC
		cfg.Timeout = 10 * time.Second
		// TIMESTAMP_LTZ values are written and read as UTC.
		cfg.Params = map[string]string{"time_zone": "'+00:00'"}
		for k, v := range d.Params {
			switch k {
			case "tls":
				cfg.TLSConfig = v
			case "charset", "collation":
				cfg.Params[k] = v
			default:
				dur, err := time.ParseDuration(v)
				if err != nil {
					return nil, fmt.Errorf("%w: url parameter %s: %q is not a duration", ErrConfig, k, v)
				}
				switch k {
				case "timeout":
					cfg.Timeout = dur
				case "readTimeout":
					cfg.ReadTimeout = dur
				case "writeTimeout":
					cfg.WriteTimeout = dur
				}
			}
		}
		conn, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		return sql.OpenDB(conn), nil
	}
}

func quoteLibpq(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}
