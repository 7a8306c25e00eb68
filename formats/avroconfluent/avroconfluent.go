// Package avroconfluent is the avro-confluent format ('format' =
// 'avro-confluent'), compatible with Flink's: each record is a zero magic
// byte, the 4-byte big-endian id of its writer schema in a
// Confluent-compatible schema registry, and the Avro binary datum.
//
// Writing registers the schema derived from the table (the avro format's
// DeriveSchema, Flink's text) under the subject on first use and prefixes
// each record with its id. The subject is avro-confluent.subject, or, as
// Flink's kafka connector completes it, <topic>-value for 'value.format'
// and <topic>-key for 'key.format' when the table has a single topic.
//
// Reading looks the writer schema up by the record's id once (cached per
// reader) and resolves it against the table as Avro does: records written
// with an older or newer compatible schema read fine (a field the table
// lacks is skipped, a nullable column the writer lacks is NULL, numbers
// promote). The registry is reached with franz-go's sr client.
//
// Options, prefixed avro-confluent. (or key.avro-confluent.,
// value.avro-confluent.): url (required), subject,
// basic-auth.credentials-source (USER_INFO), basic-auth.user-info,
// bearer-auth.credentials-source (STATIC_TOKEN), bearer-auth.token. Flink's
// ssl.*, schema and properties options are recognised and rejected as not
// supported yet.
package avroconfluent

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/avro"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// Identifier is the format's name in 'format' = 'avro-confluent'.
const Identifier = "avro-confluent"

// The format's options, declared without the avro-confluent. prefix.
var (
	URL = option.String("url").Required().
		Description("URL of the Confluent-compatible schema registry.")
	Subject = option.String("subject").
		Description("Subject the schema is registered under when writing. Default with the kafka connector and one topic: <topic>-value for value.format, <topic>-key for key.format.")
	BasicAuthSource = option.Enum("basic-auth.credentials-source", "USER_INFO", "URL", "SASL_INHERIT").
			Description("Where basic-auth credentials come from: USER_INFO (basic-auth.user-info); URL and SASL_INHERIT are not supported yet.")
	BasicAuthUserInfo = option.String("basic-auth.user-info").Sensitive().
				Description("Basic-auth credentials, user:password.")
	BearerAuthSource = option.Enum("bearer-auth.credentials-source", "STATIC_TOKEN", "OAUTHBEARER", "SASL_OAUTHBEARER_INHERIT").
				Description("Where the bearer token comes from: STATIC_TOKEN (bearer-auth.token); the others are not supported yet.")
	BearerAuthToken = option.String("bearer-auth.token").Sensitive().
			Description("Bearer token sent to the registry.")
	SSLKeystoreLocation   = option.String("ssl.keystore.location").Description("Not supported yet.")
	SSLKeystorePassword   = option.String("ssl.keystore.password").Sensitive().Description("Not supported yet.")
	SSLTruststoreLocation = option.String("ssl.truststore.location").Description("Not supported yet (https URLs are verified against the system's roots).")
	SSLTruststorePassword = option.String("ssl.truststore.password").Sensitive().Description("Not supported yet.")
	Schema                = option.String("schema").Description("An explicit writer schema: not supported yet (the schema is derived from the table).")
	Properties            = option.Map("properties").Description("Extra registry client properties: not supported yet.")
)

type constErr string

func (e constErr) Error() string { return string(e) }

const errNotYet = constErr("not supported yet")

func notYet(msg string, opt option.Option, isSet func(*option.Config) bool) option.Rule {
	return option.Check(msg, func(c *option.Config) error {
		if isSet(c) {
			return errNotYet
		}
		return nil
	}, opt)
}

// Factory returns the avro-confluent format's declaration.
func Factory() factory.FormatFactory {
	has := func(o interface {
		Lookup(*option.Config) (string, bool)
	}) func(*option.Config) bool {
		return func(c *option.Config) bool { _, ok := o.Lookup(c); return ok }
	}
	return factory.FormatFactory{
		Identifier:  Identifier,
		Description: "Avro records with a Confluent schema-registry id (magic byte 0 + 4-byte id), compatible with Flink's avro-confluent format.",
		Options: []option.Option{URL, Subject, BasicAuthSource, BasicAuthUserInfo, BearerAuthSource, BearerAuthToken,
			SSLKeystoreLocation, SSLKeystorePassword, SSLTruststoreLocation, SSLTruststorePassword, Schema, Properties},
		Rules: []option.Rule{
			notYet("avro-confluent.ssl.keystore.location is not supported yet", SSLKeystoreLocation, has(SSLKeystoreLocation)),
			notYet("avro-confluent.ssl.keystore.password is not supported yet", SSLKeystorePassword, has(SSLKeystorePassword)),
			notYet("avro-confluent.ssl.truststore.location is not supported yet", SSLTruststoreLocation, has(SSLTruststoreLocation)),
			notYet("avro-confluent.ssl.truststore.password is not supported yet", SSLTruststorePassword, has(SSLTruststorePassword)),
			notYet("avro-confluent.schema is not supported yet", Schema, has(Schema)),
			notYet("avro-confluent.properties is not supported yet", Properties, func(c *option.Config) bool { _, ok := Properties.Lookup(c); return ok }),
			notYet("avro-confluent.basic-auth.credentials-source supports USER_INFO only; the others are not supported yet", BasicAuthSource,
				func(c *option.Config) bool { v, ok := BasicAuthSource.Lookup(c); return ok && v != "USER_INFO" }),
			notYet("avro-confluent.bearer-auth.credentials-source supports STATIC_TOKEN only; the others are not supported yet", BearerAuthSource,
				func(c *option.Config) bool { v, ok := BearerAuthSource.Lookup(c); return ok && v != "STATIC_TOKEN" }),
			option.Check("avro-confluent.basic-auth.user-info must be user:password", func(c *option.Config) error {
				if v, ok := BasicAuthUserInfo.Lookup(c); ok && !strings.Contains(v, ":") {
					return constErr("no ':' in the value")
				}
				return nil
			}, BasicAuthUserInfo),
		},
		NewDecoder: NewDecoder,
		NewEncoder: NewEncoder,
	}
}

func init() { factory.MustRegisterFormat(Factory()) }

// requestTimeout bounds one registry request.
const requestTimeout = 30 * time.Second

// registry is a schema registry client, and the password of its URL
// (http://user:password@host), if any, which the client's errors show.
type registry struct {
	cl *sr.Client
	// urlSecrets are the URL's password as written and as the client
	// escapes it in the URLs its errors quote.
	urlSecrets []string
}

func client(c *option.Config) (registry, error) {
	raw := URL.Get(c)
	opts := []sr.ClientOpt{sr.URLs(raw), sr.UserAgent("streamsql")}
	if v, ok := BasicAuthUserInfo.Lookup(c); ok {
		u, p, _ := strings.Cut(v, ":")
		opts = append(opts, sr.BasicAuth(u, p))
	}
	if v, ok := BearerAuthToken.Lookup(c); ok {
		opts = append(opts, sr.BearerToken(v))
	}
	var secrets []string
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			escaped := strings.TrimPrefix(url.UserPassword("", p).String(), ":")
			secrets = append(secrets, p, escaped)
		}
	}
	cl, err := sr.NewClient(opts...)
	if err != nil {
		return registry{}, fmt.Errorf("%s: schema registry client: %w", Identifier, redact(err, secrets))
	}
	return registry{cl: cl, urlSecrets: secrets}, nil
}

// redactedError is an error of the registry client with the password of
// the registry's URL masked in its message; it unwraps to the client's
// error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact masks secrets in err's message: the sr client quotes the URL it
// requested, user information included, and the message reaches logs,
// /status and the job's final error.
func redact(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	msg := err.Error()
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, "***")
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// NewDecoder returns a decoder for ctx.Fields.
func NewDecoder(ctx factory.FormatContext) (factory.Decoder, error) {
	// The table's own schema must be derivable, as in Flink.
	if _, _, err := avro.Schema(Identifier, ctx.Fields, true); err != nil {
		return nil, err
	}
	cl, err := client(ctx.Options)
	if err != nil {
		return nil, err
	}
	return &decoder{reg: cl, fields: ctx.Fields, read: avro.ReadOf(ctx), byID: map[uint32]lookedUp{}}, nil
}

type decoder struct {
	reg    registry
	fields []types.Field
	// read is what the job reads of fields (nil: all; avro.ReadOf).
	read *factory.RowRead
	// byID caches each id's decoder, or the DecodeError that id gives (an
	// unknown id, a schema the table cannot read), so that a topic full of
	// such records does not ask the registry once per record.
	byID map[uint32]lookedUp
}

type lookedUp struct {
	dec *avro.Decoder
	err error
}

// Decode implements factory.Decoder.
func (d *decoder) Decode(data []byte, row *types.Row) error {
	if len(data) < 5 {
		return &factory.DecodeError{Format: Identifier, Offset: len(data),
			Err: fmt.Errorf("record of %d bytes is shorter than the 5-byte header (magic byte + schema id)", len(data))}
	}
	if data[0] != 0 {
		return &factory.DecodeError{Format: Identifier, Err: fmt.Errorf("unknown magic byte %d (expected 0)", data[0])}
	}
	id := binary.BigEndian.Uint32(data[1:5])
	l, ok := d.byID[id]
	if !ok {
		dec, err := d.lookup(id)
		if err != nil && !errors.As(err, new(*factory.DecodeError)) {
			return err // the registry could not be asked: not cached
		}
		l = lookedUp{dec: dec, err: err}
		d.byID[id] = l
	}
	if l.err != nil {
		return l.err
	}
	err := l.dec.Decode(data[5:], row)
	var de *factory.DecodeError
	if errors.As(err, &de) {
		de.Format = Identifier
		de.Offset += 5
	}
	return err
}

// lookup fetches writer schema id and compiles its resolution against the
// table.
func (d *decoder) lookup(id uint32) (*avro.Decoder, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	s, err := d.reg.cl.SchemaByID(ctx, int(id))
	if err != nil {
		err = redact(err, d.reg.urlSecrets)
		var re *sr.ResponseError
		if errors.As(err, &re) && re.ErrorCode == 40403 {
			return nil, &factory.DecodeError{Format: Identifier, Offset: 1, Err: fmt.Errorf("schema id %d: %w", id, err)}
		}
		return nil, fmt.Errorf("%s: fetching schema id %d: %w", Identifier, id, err)
	}
	if s.Type != sr.TypeAvro || len(s.References) > 0 {
		return nil, &factory.DecodeError{Format: Identifier, Offset: 1,
			Err: fmt.Errorf("schema id %d is a %s schema with %d references: only Avro schemas without references are supported", id, s.Type, len(s.References))}
	}
	writer, err := hamba.ParseBytes([]byte(s.Schema))
	if err != nil {
		return nil, &factory.DecodeError{Format: Identifier, Offset: 1, Err: fmt.Errorf("schema id %d does not parse: %w", id, err)}
	}
	dec, err := avro.NewResolvingDecoder(Identifier, writer, d.fields, d.read)
	if err != nil {
		return nil, &factory.DecodeError{Format: Identifier, Offset: 1, Err: fmt.Errorf("schema id %d cannot be read into the table: %w", id, err)}
	}
	return dec, nil
}

// NewEncoder returns an encoder for ctx.Fields. The schema is registered on
// the first Encode.
func NewEncoder(ctx factory.FormatContext) (factory.Encoder, error) {
	text, _, err := avro.Schema(Identifier, ctx.Fields, true)
	if err != nil {
		return nil, err
	}
	subject, ok := Subject.Lookup(ctx.Options)
	if !ok {
		if ctx.Topic == "" {
			return nil, fmt.Errorf("%s: option 'avro-confluent.subject' is required for writing unless the table has a single topic (then it is <topic>-value or <topic>-key)", Identifier)
		}
		subject = ctx.Topic + "-value"
		if ctx.IsKey {
			subject = ctx.Topic + "-key"
		}
	}
	cl, err := client(ctx.Options)
	if err != nil {
		return nil, err
	}
	return &encoder{reg: cl, subject: subject, schema: text, enc: avro.NewRowEncoder(Identifier, ctx.Fields)}, nil
}

type encoder struct {
	reg     registry
	subject string
	schema  string
	enc     *avro.Encoder
	header  []byte // magic byte and id once registered
}

// Encode implements factory.Encoder.
func (e *encoder) Encode(dst []byte, row types.Row) ([]byte, error) {
	if e.header == nil {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		id, err := e.reg.cl.RegisterSchema(ctx, e.subject, sr.Schema{Schema: e.schema, Type: sr.TypeAvro}, -1, -1)
		cancel()
		if err != nil {
			err = redact(err, e.reg.urlSecrets)
			return dst, fmt.Errorf("%s: registering the table's schema under subject '%s': %w", Identifier, e.subject, err)
		}
		e.header = binary.BigEndian.AppendUint32([]byte{0}, uint32(id))
	}
	out, err := e.enc.Encode(append(dst, e.header...), row)
	if err != nil {
		return dst, err
	}
	return out, nil
}
