package s3fs

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestParseURI(t *testing.T) {
	for _, c := range []struct{ in, bucket, prefix, err string }{
		{in: "s3://bkt", bucket: "bkt"},
		{in: "s3://bkt/", bucket: "bkt"},
		{in: "s3://bkt/a/b/", bucket: "bkt", prefix: "a/b"},
		{in: "s3a://my.bucket-1/ckpt", bucket: "my.bucket-1", prefix: "ckpt"},
		{in: "S3://bkt/x", bucket: "bkt", prefix: "x"},
		{in: "s3://", err: "no bucket"},
		{in: "s3://Bkt/x", err: "lower-case"},
		{in: "s3://b/x", err: "3 to 63"},
		{in: "s3://user:pw@bkt/x", err: "credentials do not go into the URI"},
		{in: "s3://bkt/a//b", err: "empty"},
		{in: "s3://bkt/a/../b", err: "'..'"},
		{in: "s3://bkt/a?x=1", err: "no query"},
		{in: "gs://bkt/a", err: "not an s3:// URI"},
	} {
		loc, err := ParseURI(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseURI(%q) = %v, %v; want an error with %q", c.in, loc, err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "pw") {
				t.Errorf("ParseURI(%q): the error shows the password: %v", c.in, err)
			}
			continue
		}
		if err != nil || loc.Bucket != c.bucket || loc.Prefix != c.prefix {
			t.Errorf("ParseURI(%q) = %+v, %v; want %s, %q", c.in, loc, err, c.bucket, c.prefix)
		}
	}
	loc := Location{Bucket: "bkt", Prefix: "a/b"}
	if loc.Key("c") != "a/b/c" || loc.Dir() != "a/b/" || loc.String() != "s3://bkt/a/b" || loc.Join("/j/").Prefix != "a/b/j" {
		t.Errorf("Location helpers: %q %q %q %q", loc.Key("c"), loc.Dir(), loc.String(), loc.Join("/j/").Prefix)
	}
	root := Location{Bucket: "bkt"}
	if root.Key("c") != "c" || root.Dir() != "" || root.String() != "s3://bkt" {
		t.Errorf("root Location helpers: %q %q %q", root.Key("c"), root.Dir(), root.String())
	}
}

func TestFromSettings(t *testing.T) {
	c, err := FromSettings(map[string]string{"s3.endpoint": "127.0.0.1:9000", "s3.access-key": "AK", "s3.secret-key": "hush-hush",
		"s3.region": "eu-west-1", "unrelated": "x"})
	if err != nil || c.Endpoint != "https://127.0.0.1:9000" || !c.PathStyle || c.AccessKey != "AK" || c.SecretKey != "hush-hush" || c.Region != "eu-west-1" {
		t.Fatalf("FromSettings: %+v, %v", c, err)
	}
	if strings.Contains(c.String(), "hush-hush") || strings.Contains(c.String(), "AK") {
		t.Fatalf("Config.String shows a credential: %s", c)
	}
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(f, c); strings.Contains(out, "hush-hush") {
			t.Fatalf("Sprintf(%q) of a Config shows the secret: %s", f, out)
		}
	}
	if b, _ := json.Marshal(c); strings.Contains(string(b), "hush-hush") {
		t.Fatalf("JSON of a Config shows the secret: %s", b)
	}
	c, err = FromSettings(map[string]string{"s3.endpoint": "http://h:1", "s3.path-style-access": "false", "s3.endpoint.region": "r"})
	if err != nil || c.PathStyle || c.Region != "r" || c.Endpoint != "http://h:1" {
		t.Fatalf("FromSettings with the other names: %+v, %v", c, err)
	}
	c, err = FromSettings(nil)
	if err != nil || c.PathStyle || c.Endpoint != "" {
		t.Fatalf("FromSettings(nil): %+v, %v", c, err)
	}
	for _, bad := range []map[string]string{
		{"s3.access-key": "AK"},
		{"s3.secret-key": "hush-hush"},
		{"s3.path.style.access": "yes please"},
		{"s3.endpoint": "ftp://h"},
		{"s3.endpoint": "http://user:hush-hush@h"},
		{"s3.endpoint": "http://h/bucket"},
	} {
		_, err := FromSettings(bad)
		if err == nil {
			t.Errorf("FromSettings(%v) succeeded", bad)
			continue
		}
		if strings.Contains(err.Error(), "hush-hush") {
			t.Errorf("FromSettings(%v): the error shows the secret: %v", bad, err)
		}
	}
}
