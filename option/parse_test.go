package option

import (
	"reflect"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{
		"10s": 10 * time.Second, "1 min": time.Minute, "500 ms": 500 * time.Millisecond, "500": 500 * time.Millisecond,
		"2h": 2 * time.Hour, "1d": 24 * time.Hour, "3 days": 72 * time.Hour, "5 MIN": 5 * time.Minute,
		"7 seconds": 7 * time.Second, "10 SECONDS": 10 * time.Second, "1m": time.Minute, "9ns": 9, "4µs": 4 * time.Microsecond, " 0 ": 0,
	}
	for in, want := range good {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "s", "-1s", "1.5s", "10 fortnights", "99999999999999999999s", "9999999999d"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", in)
		}
	}
	for _, d := range []time.Duration{10 * time.Second, 5 * time.Minute, 500 * time.Millisecond, 3, 36 * time.Hour} {
		back, err := ParseDuration(FormatDuration(d))
		if err != nil || back != d {
			t.Errorf("FormatDuration(%v) = %q does not parse back", d, FormatDuration(d))
		}
	}
	// The largest exact unit, as job settings' defaults are shown.
	for _, s := range []string{"0 ms", "10 min", "1 h", "2 d", "1500 ms", "3 us", "7 ns", "90 s"} {
		d, err := ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatDuration(d); got != s {
			t.Errorf("FormatDuration(ParseDuration(%q)) = %q", s, got)
		}
	}
}

func TestParseMemorySize(t *testing.T) {
	good := map[string]MemorySize{"64mb": 64 << 20, "1 gb": 1 << 30, "512k": 512 << 10, "100": 100, "2 TB": 2 << 40, "7 bytes": 7}
	for in, want := range good {
		got, err := ParseMemorySize(in)
		if err != nil || got != want {
			t.Errorf("ParseMemorySize(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "mb", "1 pb", "1.5mb", "99999999999999 tb"} {
		if _, err := ParseMemorySize(in); err == nil {
			t.Errorf("ParseMemorySize(%q) succeeded", in)
		}
	}
	if MemorySize(64<<20).String() != "64mb" || MemorySize(1000).String() != "1000b" {
		t.Error("MemorySize.String")
	}
}

func TestParseListAndMap(t *testing.T) {
	if got := ParseList(" a ;;b; "); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("ParseList = %q", got)
	}
	m, err := ParseMap("k:v, k2 : v2:x")
	if err != nil || !reflect.DeepEqual(m, map[string]string{"k": "v", "k2": "v2:x"}) {
		t.Errorf("ParseMap = %v %v", m, err)
	}
	if m, err := ParseMap(" "); err != nil || len(m) != 0 {
		t.Errorf("empty map: %v %v", m, err)
	}
	if _, err := ParseMap("a:1,:2"); err == nil {
		t.Error("empty key accepted")
	}
}

func TestIsSensitiveKey(t *testing.T) {
	for _, k := range []string{"properties.sasl.jaas.config", "password", "x.API-KEY", "properties.ssl.keystore.password", "oauth.token", "properties.ssl.keystore.key"} {
		if !IsSensitiveKey(k) {
			t.Errorf("%s not sensitive", k)
		}
	}
	for _, k := range []string{"topic", "properties.bootstrap.servers", "key.fields", "properties.ssl.truststore.certificates"} {
		if IsSensitiveKey(k) {
			t.Errorf("%s sensitive", k)
		}
	}
}
