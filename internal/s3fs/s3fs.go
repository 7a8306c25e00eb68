// Package s3fs holds what S3-compatible object storage needs before any
// client exists: the s3:// URIs of checkpoint folders and filesystem
// tables, and the client settings with Flink's names (s3.endpoint,
// s3.path.style.access, s3.access-key, s3.secret-key, s3.region), read
// from a job's settings. It imports no S3 client, so that packages which
// only pass the settings on (the runtime's configuration, the planner)
// do not link one; package s3fs/client is the client.
package s3fs

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// The job settings of the S3 client, with the names Flink's S3 file
// systems read from the cluster configuration.
const (
	// KeyEndpoint is the S3 endpoint (http://host:port or host[:port],
	// which means https); unset: AWS's endpoint of the region.
	KeyEndpoint = "s3.endpoint"
	// KeyPathStyle is whether buckets are addressed as a path
	// (http://host/bucket/key) rather than a host name
	// (http://bucket.host/key). Default: true when KeyEndpoint is set, as
	// S3-compatible servers expect, false for AWS.
	KeyPathStyle = "s3.path.style.access"
	// KeyPathStyleNative is Flink's native S3 file system's name of
	// KeyPathStyle.
	KeyPathStyleNative = "s3.path-style-access"
	// KeyAccessKey and KeySecretKey are static credentials; unset, the
	// standard AWS credential chain is used (environment, shared
	// credentials and config files, web identity, container and instance
	// roles).
	KeyAccessKey = "s3.access-key"
	KeySecretKey = "s3.secret-key"
	// KeyRegion is the region; unset: from the AWS chain (AWS_REGION,
	// the shared config file), else us-east-1.
	KeyRegion = "s3.region"
	// KeyRegionHadoop is the name Flink's Hadoop S3 file system mirrors
	// from fs.s3a.endpoint.region.
	KeyRegionHadoop = "s3.endpoint.region"
)

// Secret is a credential: it prints, formats and marshals as ******, so
// that a Config printed by mistake (%v, %+v, JSON) shows no secret.
// string(s) is the value.
type Secret string

// String returns ****** (or "" for an empty secret).
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "******"
}

// GoString returns ****** too (%#v).
func (s Secret) GoString() string { return `"` + s.String() + `"` }

// MarshalText returns ******.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Config is the S3 client's configuration.
type Config struct {
	// Endpoint is s3.endpoint, with a scheme ("" for AWS).
	Endpoint string
	// PathStyle is s3.path.style.access.
	PathStyle bool
	// AccessKey and SecretKey are s3.access-key and s3.secret-key; both
	// empty means the AWS credential chain.
	AccessKey string
	SecretKey Secret
	// Region is s3.region ("" for the AWS chain's, else us-east-1).
	Region string
}

// String describes c for messages without its credentials.
func (c Config) String() string {
	ep := c.Endpoint
	if ep == "" {
		ep = "AWS"
	}
	creds := "the AWS credential chain"
	if c.AccessKey != "" {
		creds = "static credentials (s3.access-key, s3.secret-key)"
	}
	return fmt.Sprintf("endpoint %s, path-style %t, region %q, %s", ep, c.PathStyle, c.Region, creds)
}

// SettingError is an invalid client setting.
type SettingError struct {
	// Key is the setting; Reason says what is wrong (without its value
	// when the value could hold a credential).
	Key, Reason string
}

func (e *SettingError) Error() string { return fmt.Sprintf("'%s': %s", e.Key, e.Reason) }

// FromSettings reads the client's settings from a job's settings (keys
// this package does not name are ignored). Each error is a *SettingError;
// none shows a credential.
func FromSettings(settings map[string]string) (Config, error) {
	var c Config
	get := func(keys ...string) (string, bool) {
		for _, k := range keys {
			if v, ok := settings[k]; ok {
				return strings.TrimSpace(v), true
			}
		}
		return "", false
	}
	var errs []error
	if v, _ := get(KeyEndpoint); v != "" {
		ep, err := endpoint(v)
		if err != nil {
			errs = append(errs, &SettingError{Key: KeyEndpoint, Reason: err.Error()})
		}
		c.Endpoint = ep
	}
	c.PathStyle = c.Endpoint != ""
	if v, ok := get(KeyPathStyle, KeyPathStyleNative); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, &SettingError{Key: KeyPathStyle, Reason: fmt.Sprintf("'%s' is not true or false", v)})
		}
		c.PathStyle = b
	}
	c.AccessKey, _ = get(KeyAccessKey)
	secret, _ := get(KeySecretKey)
	c.SecretKey = Secret(secret)
	if err := c.CheckCredentials(); err != nil {
		errs = append(errs, err)
	}
	c.Region, _ = get(KeyRegion, KeyRegionHadoop)
	return c, errors.Join(errs...)
}

// CheckCredentials reports an error when only one of the static
// credentials is set.
func (c Config) CheckCredentials() error {
	if (c.AccessKey == "") != (c.SecretKey == "") {
		return &SettingError{Key: KeyAccessKey, Reason: fmt.Sprintf("'%s' and '%s' go together: set both, or neither to use the AWS credential chain",
			KeyAccessKey, KeySecretKey)}
	}
	return nil
}

// endpoint checks an s3.endpoint value and gives it a scheme.
func endpoint(v string) (string, error) {
	if !strings.Contains(v, "://") {
		v = "https://" + v
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		return "", fmt.Errorf("'%s' is not http://host[:port], https://host[:port] or host[:port] (credentials go into s3.access-key and s3.secret-key)", redactUser(v))
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return "", fmt.Errorf("'%s' has a path or query; the bucket and prefix go into the s3:// path", redactUser(v))
	}
	return u.Scheme + "://" + u.Host, nil
}

// redactUser hides user information in a URL-like string.
func redactUser(v string) string {
	if i := strings.Index(v, "@"); i >= 0 {
		if j := strings.Index(v, "://"); j >= 0 && j < i {
			return v[:j+3] + "***@" + v[i+1:]
		}
		return "***@" + v[i+1:]
	}
	return v
}

// IsURI reports whether path is an s3:// (or s3a://) URI.
func IsURI(path string) bool {
	p := strings.ToLower(strings.TrimSpace(path))
	return strings.HasPrefix(p, "s3://") || strings.HasPrefix(p, "s3a://")
}

// Location is a bucket and a key prefix: a "folder" of object storage.
type Location struct {
	Bucket string
	// Prefix is the key prefix without leading or trailing slash ("" for
	// the bucket's root).
	Prefix string
}

// ParseURI parses s3://bucket[/prefix] (s3a:// is accepted as Flink
// does). The prefix loses its leading and trailing slashes; a prefix with
// empty, "." or ".." segments is refused.
func ParseURI(uri string) (Location, error) {
	s := strings.TrimSpace(uri)
	shown := redactUser(s) // never show credentials someone put into the URI
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || (!strings.EqualFold(scheme, "s3") && !strings.EqualFold(scheme, "s3a")) {
		return Location{}, fmt.Errorf("%q is not an s3:// URI", shown)
	}
	if strings.ContainsAny(rest, "?#") {
		return Location{}, fmt.Errorf("%q: an s3:// path takes no query or fragment", shown)
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	if err := validBucket(bucket); err != nil {
		return Location{}, fmt.Errorf("%q: %w", shown, err)
	}
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		for seg := range strings.SplitSeq(prefix, "/") {
			if seg == "" || seg == "." || seg == ".." {
				return Location{}, fmt.Errorf("%q: the key prefix has an empty, '.' or '..' segment", shown)
			}
		}
	}
	return Location{Bucket: bucket, Prefix: prefix}, nil
}

// validBucket checks a bucket name by S3's rules (3 to 63 characters of
// lower-case letters, digits, '.' and '-', starting and ending with a
// letter or digit).
func validBucket(b string) error {
	if b == "" {
		return errors.New("no bucket: want s3://bucket/prefix")
	}
	if strings.Contains(b, "@") {
		return errors.New("credentials do not go into the URI; set s3.access-key and s3.secret-key")
	}
	if len(b) < 3 || len(b) > 63 {
		return fmt.Errorf("bucket name %q must have 3 to 63 characters", b)
	}
	for i, c := range []byte(b) {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || (c == '.' || c == '-') && i > 0 && i < len(b)-1
		if !ok {
			return fmt.Errorf("bucket name %q: S3 bucket names have lower-case letters, digits, '.' and '-', and start and end with a letter or digit", b)
		}
	}
	return nil
}

// Key joins the location's prefix and a relative key.
func (l Location) Key(rel string) string {
	if l.Prefix == "" {
		return rel
	}
	if rel == "" {
		return l.Prefix
	}
	return l.Prefix + "/" + rel
}

// Dir returns the prefix as a folder: "" or "prefix/".
func (l Location) Dir() string {
	if l.Prefix == "" {
		return ""
	}
	return l.Prefix + "/"
}

// Join returns the location of a sub-folder.
func (l Location) Join(rel string) Location {
	return Location{Bucket: l.Bucket, Prefix: l.Key(strings.Trim(rel, "/"))}
}

// String returns s3://bucket/prefix.
func (l Location) String() string {
	if l.Prefix == "" {
		return "s3://" + l.Bucket
	}
	return "s3://" + l.Bucket + "/" + l.Prefix
}

// URI returns the s3:// URI of a key of the bucket.
func (l Location) URI(key string) string { return "s3://" + l.Bucket + "/" + key }
