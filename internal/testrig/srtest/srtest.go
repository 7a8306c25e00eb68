// Package srtest is a schema registry for tests that speaks the subset of
// the Confluent Schema Registry REST API that streamsql's avro-confluent
// format and franz-go's sr client use, for tests that need a fresh registry
// of their own (request counts, auth, ids from 1, fuzzing). Confluent's
// registry cannot be run here (docs/formats.md says what was tried); a real
// Confluent-compatible one, Apicurio Registry, runs beside it (see
// RequireReal), and its differences from Confluent's are listed in
// docs/formats.md. srtest is kept small and written to the protocol facts
// below, which are Confluent's.
//
// Sources: Confluent's API reference ("Content Types", "Errors",
// https://docs.confluent.io/platform/current/schema-registry/develop/api.html)
// and Confluent's registry source at tag v7.9.0 (github.com/confluentinc/
// schema-registry): core/.../rest/exceptions/Errors.java for error codes
// and messages, core/.../rest/resources/SubjectVersionsResource.java,
// SchemasResource.java, and client/.../rest/entities/SchemaString.java,
// Schema.java, requests/RegisterSchemaResponse.java for the JSON shapes
// (all annotated @JsonInclude(NON_EMPTY): empty fields are left out).
//
//   - Requests and responses are JSON; the registry answers with content
//     type application/vnd.schemaregistry.v1+json. Answers are written by
//     Jackson: fields in the entity's order, empty ones left out
//     (@JsonInclude(NON_EMPTY)), schemaType AVRO left out
//     (SchemaTypeConverter), <, > and & not escaped, no trailing newline.
//   - POST /subjects/{subject}/versions with {"schema": "...",
//     "schemaType": ..., "references": [...]} registers a schema and
//     answers {"id": N}: KafkaSchemaRegistry.register returns a Schema
//     holding only the id unless registering changed the schema
//     (normalization, metadata or rules from the subject's config, none of
//     which srtest has), and RegisterSchemaResponse leaves the rest out.
//     The id identifies the schema globally: the same schema registered
//     under another subject gets the same id, with a version of its own in
//     each subject; registering a schema the subject already has returns
//     its id again. A schema that is not compatible with the subject's
//     latest one under the compatibility level (BACKWARD by default: the
//     new schema must read data written with the latest) is refused with
//     HTTP 409 and error_code 409 (Errors.INCOMPATIBLE_SCHEMA_ERROR_CODE is
//     the HTTP status in releases up to v8.3.0; later sources change it to
//     40901); an invalid schema with 422 and error_code 42201.
//   - GET /schemas/ids/{id} answers {"schema": "..."}; an unknown id is 404
//     with error_code 40403 and message "Schema {id} not found".
//   - GET /subjects/{subject}/versions/latest answers {"subject",
//     "version", "id", "schema"} in that order (Schema's creator order);
//     an unknown subject is 404 with error_code 40401 and message
//     "Subject '{subject}' not found.".
//   - Errors are {"error_code": N, "message": "..."}.
//
// TestAnswerBytes checks these bytes. Confluent's own JavaScript client
// (@confluentinc/schemaregistry 1.10.1) was run against this registry
// (tools/confluent-client-check); formats/avroconfluent's
// TestConfluentClientGolden replays every request it sent and compares the
// answers byte for byte. That client also sends query parameters srtest
// ignores (?normalize=false on register, ?subject= on /schemas/ids/{id})
// and first asks GET /associations/resources/-/{topic} (newer registries'
// associated-subject strategy); srtest answers that path as any unknown
// one, 404 with error_code 404, as a registry without the endpoint does,
// and the client falls back to <topic>-value. Known differences from Confluent's
// registry, none of which a client of this API depends on: Confluent
// stores and returns the schema in its canonical form (the parsed schema
// printed again by Avro: register sets
// schema.setSchema(parsedSchema.canonicalString())) and so gives the same
// id to schemas that differ only in JSON layout; srtest returns the text as
// registered (the same bytes when it is already in Avro's layout, as
// streamsql's encoder writes it) and identifies schemas by their compacted
// JSON. Go escapes U+2028 and U+2029 in strings, Jackson does not.
// Confluent's 401 answer comes from its HTTP layer (rest-utils), not from
// this error format.
//
// Only AVRO schemas without references are accepted; compatibility is
// checked with hamba/avro's schema compatibility (Avro's resolution rules).
// Requests can require HTTP basic auth or a bearer token (see Options).
package srtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	hamba "github.com/hamba/avro/v2"
)

// Options configure a Registry.
type Options struct {
	// BasicAuth, when set ("user:password"), is required on every request.
	BasicAuth string
	// BearerToken, when set, is required on every request.
	BearerToken string
}

// Registry is a running test registry.
type Registry struct {
	srv  *httptest.Server
	opts Options

	mu       sync.Mutex
	schemas  []string         // id-1 → schema text
	ids      map[string]int   // compact schema text → id
	subjects map[string][]int // subject → ids by version-1
	// Requests counts requests by "METHOD path-pattern", for tests that
	// check caching.
	requests map[string]int
}

// Start starts a registry on a loopback port; Close stops it.
func Start(opts Options) *Registry {
	r := &Registry{opts: opts, ids: map[string]int{}, subjects: map[string][]int{}, requests: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	return r
}

// URL is the registry's base URL.
func (r *Registry) URL() string { return r.srv.URL }

// Close stops the registry.
func (r *Registry) Close() { r.srv.Close() }

// Requests returns how many requests of kind ("GET /schemas/ids",
// "POST /subjects/versions", "GET /subjects/versions/latest") were served.
func (r *Registry) Requests(kind string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests[kind]
}

const contentType = "application/vnd.schemaregistry.v1+json"

// writeJSON writes v as Confluent's registry (Jackson) does: fields in the
// order of the answer's struct, no HTML escaping of <, > and &, no
// trailing newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// The answers, their fields in the order Confluent's entities
// (ErrorMessage, SchemaString, Schema, RegisterSchemaResponse) write them.
type (
	errorAnswer struct {
		ErrorCode int    `json:"error_code"`
		Message   string `json:"message"`
	}
	schemaAnswer struct {
		Schema string `json:"schema"`
	}
	versionAnswer struct {
		Subject string `json:"subject"`
		Version int    `json:"version"`
		ID      int    `json:"id"`
		Schema  string `json:"schema"`
	}
	idAnswer struct {
		ID int `json:"id"`
	}
)

func fail(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, errorAnswer{ErrorCode: code, Message: msg})
}

func (r *Registry) authorized(req *http.Request) bool {
	if r.opts.BasicAuth != "" {
		u, p, ok := req.BasicAuth()
		if !ok || u+":"+p != r.opts.BasicAuth {
			return false
		}
	}
	if r.opts.BearerToken != "" && req.Header.Get("Authorization") != "Bearer "+r.opts.BearerToken {
		return false
	}
	return true
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	if !r.authorized(req) {
		fail(w, http.StatusUnauthorized, 401, "Unauthorized")
		return
	}
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	switch {
	case req.Method == http.MethodGet && len(parts) == 3 && parts[0] == "schemas" && parts[1] == "ids":
		r.count("GET /schemas/ids")
		r.schemaByID(w, parts[2])
	case req.Method == http.MethodPost && len(parts) == 3 && parts[0] == "subjects" && parts[2] == "versions":
		r.count("POST /subjects/versions")
		r.register(w, req, parts[1])
	case req.Method == http.MethodGet && len(parts) == 4 && parts[0] == "subjects" && parts[2] == "versions" && parts[3] == "latest":
		r.count("GET /subjects/versions/latest")
		r.latest(w, parts[1])
	default:
		fail(w, http.StatusNotFound, 404, "HTTP 404 Not Found")
	}
}

func (r *Registry) count(kind string) {
	r.mu.Lock()
	r.requests[kind]++
	r.mu.Unlock()
}

func (r *Registry) schemaByID(w http.ResponseWriter, s string) {
	id, err := strconv.Atoi(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil || id < 1 || id > len(r.schemas) {
		fail(w, http.StatusNotFound, 40403, fmt.Sprintf("Schema %s not found", s))
		return
	}
	writeJSON(w, http.StatusOK, schemaAnswer{Schema: r.schemas[id-1]})
}

func (r *Registry) latest(w http.ResponseWriter, subject string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs := r.subjects[subject]
	if len(vs) == 0 {
		fail(w, http.StatusNotFound, 40401, fmt.Sprintf("Subject '%s' not found.", subject))
		return
	}
	id := vs[len(vs)-1]
	writeJSON(w, http.StatusOK, versionAnswer{Subject: subject, Version: len(vs), ID: id, Schema: r.schemas[id-1]})
}

func (r *Registry) register(w http.ResponseWriter, req *http.Request, subject string) {
	var body struct {
		Schema     string            `json:"schema"`
		SchemaType string            `json:"schemaType"`
		References []json.RawMessage `json:"references"`
	}
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
		fail(w, http.StatusBadRequest, 400, "Bad Request: "+err.Error())
		return
	}
	if (body.SchemaType != "" && body.SchemaType != "AVRO") || len(body.References) > 0 {
		fail(w, http.StatusUnprocessableEntity, 42201, "Invalid schema: only AVRO schemas without references are supported by this test registry")
		return
	}
	s, err := hamba.ParseBytes([]byte(body.Schema))
	if err != nil {
		fail(w, http.StatusUnprocessableEntity, 42201, "Invalid schema "+err.Error())
		return
	}
	// The same schema is the same JSON, whitespace aside.
	var compact bytes.Buffer
	_ = json.Compact(&compact, []byte(body.Schema))
	canon := compact.String()
	r.mu.Lock()
	defer r.mu.Unlock()
	vs := r.subjects[subject]
	if id, ok := r.ids[canon]; ok {
		for _, v := range vs {
			if v == id {
				writeJSON(w, http.StatusOK, idAnswer{ID: id})
				return
			}
		}
	}
	if len(vs) > 0 {
		latest, err := hamba.ParseBytes([]byte(r.schemas[vs[len(vs)-1]-1]))
		if err == nil {
			// BACKWARD: the new schema reads what the latest wrote.
			if err := hamba.NewSchemaCompatibility().Compatible(s, latest); err != nil {
				fail(w, http.StatusConflict, 409, fmt.Sprintf("Schema being registered is incompatible with an earlier schema for subject %q: %v", subject, err))
				return
			}
		}
	}
	id, ok := r.ids[canon]
	if !ok {
		r.schemas = append(r.schemas, body.Schema)
		id = len(r.schemas)
		r.ids[canon] = id
	}
	r.subjects[subject] = append(vs, id)
	writeJSON(w, http.StatusOK, idAnswer{ID: id})
}
