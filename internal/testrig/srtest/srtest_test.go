package srtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAnswerBytes checks the answers byte for byte against what
// Confluent's registry (v7.9.0 source, see the package comment) writes:
// Jackson's field order (the entity's creator order: subject, version, id,
// schema), empty fields and schemaType AVRO left out, no HTML escaping,
// no trailing newline, and the error bodies and codes of Errors.java.
func TestAnswerBytes(t *testing.T) {
	r := Start(Options{})
	defer r.Close()
	// The schema is in the layout Confluent stores (Avro's own printing),
	// so the text it returns is the text registered.
	quoted := `"{\"type\":\"record\",\"name\":\"r\",\"doc\":\"a <b> & c\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}"`
	do := func(method, path, body string) (int, string, string) {
		t.Helper()
		req, err := http.NewRequest(method, r.URL()+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	for _, c := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"GET", "/subjects/s/versions/latest", "", 404, `{"error_code":40401,"message":"Subject 's' not found."}`},
		{"POST", "/subjects/s/versions", `{"schema":` + quoted + `}`, 200, `{"id":1}`},
		{"POST", "/subjects/s/versions", `{"schema":` + quoted + `,"schemaType":"AVRO"}`, 200, `{"id":1}`},
		{"GET", "/subjects/s/versions/latest", "", 200, `{"subject":"s","version":1,"id":1,"schema":` + quoted + `}`},
		{"GET", "/schemas/ids/1", "", 200, `{"schema":` + quoted + `}`},
		{"GET", "/schemas/ids/7", "", 404, `{"error_code":40403,"message":"Schema 7 not found"}`},
	} {
		status, ct, got := do(c.method, c.path, c.body)
		if status != c.status || got != c.want || ct != contentType {
			t.Errorf("%s %s: %d %s %q\nwant %d %s %q", c.method, c.path, status, ct, got, c.status, contentType, c.want)
		}
	}
}
