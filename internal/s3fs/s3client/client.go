// Package s3client is the S3 client of the checkpoint storage and of the
// filesystem connector: the operations they need (single-object puts,
// conditional or not; ranged reads; listings; deletes; multipart uploads)
// over aws-sdk-go-v2, configured from s3fs.Config, with errors that name
// the operation and the s3:// object and never a credential.
//
// Conditional writes: Put with IfNoneMatch sends If-None-Match: * (create
// only if absent), with IfMatch sends If-Match: <etag> (replace only that
// version). A failed condition is ErrPrecondition. ProbeConditionalWrites
// checks that a server honours them rather than ignoring the headers.
package s3client

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/streamsql/streamsql/internal/s3fs"
)

// The client of s3:// filesystem tables, registered for every program that
// links this package (connectors/filesystem/s3, runtime/checkpoint/s3store).
func init() {
	s3fs.RegisterClient(func(ctx context.Context, cfg s3fs.Config) (s3fs.Client, error) {
		c, err := New(ctx, cfg)
		if err != nil {
			return nil, err // not a nil *Client in a non-nil interface
		}
		return c, nil
	})
}

var _ s3fs.Client = (*Client)(nil)

// Client is an S3 client. It is safe for concurrent use.
type Client struct {
	api *s3.Client
	cfg s3fs.Config
}

// DefaultRegion is the region used when neither s3.region nor the AWS
// chain names one.
const DefaultRegion = "us-east-1"

// New returns a client for cfg. With no static credentials the AWS
// credential chain is used; credentials are resolved at the first
// request, not here.
func New(ctx context.Context, cfg s3fs.Config) (*Client, error) {
	var opts []func(*config.LoadOptions) error
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	if cfg.AccessKey != "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(cfg.AccessKey, string(cfg.SecretKey), "")))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		// The chain's errors name files and profiles, not secrets.
		return nil, fmt.Errorf("s3 client (%s): %w", cfg, err)
	}
	if awsCfg.Region == "" {
		awsCfg.Region = DefaultRegion
	}
	cfg.Region = awsCfg.Region
	api := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		o.UsePathStyle = cfg.PathStyle
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		// Checksums only where the API requires them: S3-compatible
		// servers differ in the newer checksum headers, and puts carry
		// Content-MD5, which every server checks.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	return &Client{api: api, cfg: cfg}, nil
}

// Config returns the client's configuration (the region resolved).
func (c *Client) Config() s3fs.Config { return c.cfg }

// ErrPrecondition is wrapped by errors of a conditional request whose
// condition did not hold (HTTP 412).
var ErrPrecondition = s3fs.ErrPrecondition

// ErrNoSuchUpload is wrapped by errors of multipart operations on an
// upload that is not there (completed or aborted).
var ErrNoSuchUpload = s3fs.ErrNoSuchUpload

// wrap turns an SDK error into one that names the operation and the
// object, wrapping fs.ErrNotExist, ErrPrecondition or ErrNoSuchUpload
// where they apply.
func wrap(op, bucket, key string, err error) error {
	if err == nil {
		return nil
	}
	what := "s3://" + bucket + "/" + key
	var ae smithy.APIError
	code := ""
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	status := 0
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	switch {
	case code == "PreconditionFailed" || status == http.StatusPreconditionFailed:
		return fmt.Errorf("%s %s: %w: %w", op, what, ErrPrecondition, err)
	case code == "NoSuchUpload":
		return fmt.Errorf("%s %s: %w: %w", op, what, ErrNoSuchUpload, err)
	case code == "NoSuchKey" || code == "NotFound" || (status == http.StatusNotFound && code != "NoSuchBucket"):
		return fmt.Errorf("%s %s: %w: %w", op, what, fs.ErrNotExist, err)
	}
	return fmt.Errorf("%s %s: %w", op, what, err)
}

// Cond is the condition of a Put.
type Cond = s3fs.Cond

func contentMD5(data []byte) *string {
	sum := md5.Sum(data)
	return aws.String(base64.StdEncoding.EncodeToString(sum[:]))
}

// Put stores data as one object (atomically: readers see all of it or
// the previous state) and returns its ETag.
func (c *Client) Put(ctx context.Context, bucket, key string, data []byte, cond Cond) (string, error) {
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))), ContentMD5: contentMD5(data)}
	if cond.IfNoneMatch {
		in.IfNoneMatch = aws.String("*")
	}
	if cond.IfMatch != "" {
		in.IfMatch = aws.String(cond.IfMatch)
	}
	out, err := c.api.PutObject(ctx, in)
	if err != nil {
		return "", wrap("put", bucket, key, err)
	}
	return aws.ToString(out.ETag), nil
}

// Object describes a stored object.
type Object = s3fs.Object

// Head returns an object's description; a missing object is an error
// wrapping fs.ErrNotExist.
func (c *Client) Head(ctx context.Context, bucket, key string) (Object, error) {
	out, err := c.api.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return Object{}, wrap("head", bucket, key, err)
	}
	return Object{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: aws.ToString(out.ETag), LastModified: aws.ToTime(out.LastModified)}, nil
}

// Get opens an object for reading from offset on; a missing object is an
// error wrapping fs.ErrNotExist.
func (c *Client) Get(ctx context.Context, bucket, key string, offset int64) (io.ReadCloser, error) {
	in := &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if offset > 0 {
		in.Range = aws.String(fmt.Sprintf("bytes=%d-", offset))
	}
	out, err := c.api.GetObject(ctx, in)
	if err != nil {
		var ae smithy.APIError
		if offset > 0 && errors.As(err, &ae) && ae.ErrorCode() == "InvalidRange" {
			// The offset is the object's end: nothing left to read.
			if obj, herr := c.Head(ctx, bucket, key); herr == nil && obj.Size == offset {
				return io.NopCloser(bytes.NewReader(nil)), nil
			}
		}
		return nil, wrap("get", bucket, key, err)
	}
	return &body{rc: out.Body, op: "read", what: "s3://" + bucket + "/" + key}, nil
}

// body names the object in read errors.
type body struct {
	rc       io.ReadCloser
	op, what string
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s %s: %w", b.op, b.what, err)
	}
	return n, err
}

func (b *body) Close() error { return b.rc.Close() }

// GetAll reads a whole object and returns it with its ETag.
func (c *Client) GetAll(ctx context.Context, bucket, key string) ([]byte, string, error) {
	out, err := c.api.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, "", wrap("get", bucket, key, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, "", fmt.Errorf("read s3://%s/%s: %w", bucket, key, err)
	}
	return data, aws.ToString(out.ETag), nil
}

// List returns every object whose key starts with prefix, sorted by key.
func (c *Client) List(ctx context.Context, bucket, prefix string) ([]Object, error) {
	var out []Object
	p := s3.NewListObjectsV2Paginator(c.api, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, wrap("list", bucket, prefix+"*", err)
		}
		for _, o := range page.Contents {
			out = append(out, Object{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag),
				LastModified: aws.ToTime(o.LastModified)})
		}
	}
	slices.SortFunc(out, func(a, b Object) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// Delete deletes an object; a missing one is no error. With ifMatch set
// the delete is conditional on the object's ETag (servers that do not
// know conditional deletes ignore it).
func (c *Client) Delete(ctx context.Context, bucket, key, ifMatch string) error {
	in := &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if ifMatch != "" {
		in.IfMatch = aws.String(ifMatch)
	}
	_, err := c.api.DeleteObject(ctx, in)
	if err = wrap("delete", bucket, key, err); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// DeleteAll deletes objects, a thousand per request.
func (c *Client) DeleteAll(ctx context.Context, bucket string, keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		ids := make([]types.ObjectIdentifier, n)
		for i, k := range keys[:n] {
			ids[i] = types.ObjectIdentifier{Key: aws.String(k)}
		}
		out, err := c.api.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket),
			Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return wrap("delete", bucket, keys[0]+" and others", err)
		}
		for _, e := range out.Errors {
			if aws.ToString(e.Code) != "NoSuchKey" {
				return fmt.Errorf("delete s3://%s/%s: %s: %s", bucket, aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message))
			}
		}
		keys = keys[n:]
	}
	return nil
}

// Part is an uploaded part of a multipart upload.
type Part = s3fs.Part

// CreateUpload starts a multipart upload of key and returns its id. The
// object appears only when the upload is completed.
func (c *Client) CreateUpload(ctx context.Context, bucket, key string) (string, error) {
	out, err := c.api.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return "", wrap("create multipart upload of", bucket, key, err)
	}
	return aws.ToString(out.UploadId), nil
}

// MinPartSize is the smallest size of a part other than the last one.
const MinPartSize = s3fs.MinPartSize

// UploadPart uploads part n of an upload.
func (c *Client) UploadPart(ctx context.Context, bucket, key, id string, n int32, data []byte) (Part, error) {
	out, err := c.api.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id),
		PartNumber: aws.Int32(n), Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data))), ContentMD5: contentMD5(data)})
	if err != nil {
		return Part{}, wrap(fmt.Sprintf("upload part %d of", n), bucket, key, err)
	}
	return Part{N: n, ETag: aws.ToString(out.ETag), Size: int64(len(data))}, nil
}

// CompleteUpload completes an upload from its parts: the object appears,
// whole. An upload that is not there (completed before, or aborted) is an
// error wrapping ErrNoSuchUpload.
func (c *Client) CompleteUpload(ctx context.Context, bucket, key, id string, parts []Part) error {
	cp := make([]types.CompletedPart, len(parts))
	for i, p := range parts {
		cp[i] = types.CompletedPart{PartNumber: aws.Int32(p.N), ETag: aws.String(p.ETag)}
	}
	_, err := c.api.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: aws.String(id), MultipartUpload: &types.CompletedMultipartUpload{Parts: cp}})
	return wrap("complete multipart upload of", bucket, key, err)
}

// AbortUpload aborts an upload, deleting its parts; one that is not there
// is no error.
func (c *Client) AbortUpload(ctx context.Context, bucket, key, id string) error {
	_, err := c.api.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id)})
	if err = wrap("abort multipart upload of", bucket, key, err); errors.Is(err, ErrNoSuchUpload) || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Upload is a multipart upload in progress.
type Upload = s3fs.Upload

// ListUploads returns the multipart uploads in progress whose key starts
// with prefix.
func (c *Client) ListUploads(ctx context.Context, bucket, prefix string) ([]Upload, error) {
	var out []Upload
	in := &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Prefix: aws.String(prefix)}
	for {
		page, err := c.api.ListMultipartUploads(ctx, in)
		if err != nil {
			return nil, wrap("list multipart uploads", bucket, prefix+"*", err)
		}
		for _, u := range page.Uploads {
			out = append(out, Upload{Key: aws.ToString(u.Key), ID: aws.ToString(u.UploadId), Initiated: aws.ToTime(u.Initiated)})
		}
		if !aws.ToBool(page.IsTruncated) {
			return out, nil
		}
		in.KeyMarker, in.UploadIdMarker = page.NextKeyMarker, page.NextUploadIdMarker
	}
}

// PutStream stores what r yields under key and returns its size: as one
// object when it fits into partSize, else as a multipart upload of
// partSize parts (aborted when anything fails, so that nothing appears).
func (c *Client) PutStream(ctx context.Context, bucket, key string, r io.Reader, partSize int) (int64, error) {
	partSize = max(partSize, MinPartSize)
	buf := make([]byte, partSize)
	n, err := io.ReadFull(r, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		_, err := c.Put(ctx, bucket, key, buf[:n], Cond{})
		return int64(n), err
	}
	if err != nil {
		return 0, fmt.Errorf("write s3://%s/%s: %w", bucket, key, err)
	}
	id, err := c.CreateUpload(ctx, bucket, key)
	if err != nil {
		return 0, err
	}
	var parts []Part
	var total int64
	fail := func(err error) (int64, error) {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = c.AbortUpload(actx, bucket, key, id)
		return 0, err
	}
	for n > 0 {
		p, err := c.UploadPart(ctx, bucket, key, id, int32(len(parts)+1), buf[:n])
		if err != nil {
			return fail(err)
		}
		parts = append(parts, p)
		total += int64(n)
		n, err = io.ReadFull(r, buf)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return fail(fmt.Errorf("write s3://%s/%s: %w", bucket, key, err))
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if err := c.CompleteUpload(ctx, bucket, key, id, parts); err != nil {
		return fail(err)
	}
	return total, nil
}

// ErrNoConditionalWrites is wrapped by the error of
// ProbeConditionalWrites when the server ignores If-None-Match.
var ErrNoConditionalWrites = errors.New("the S3 server does not honour conditional writes (If-None-Match)")

// ProbeConditionalWrites checks that the server refuses a put with
// If-None-Match: * of an existing object (key is written and deleted).
// Servers that ignore the header would let two writers both "create" an
// object.
func (c *Client) ProbeConditionalWrites(ctx context.Context, bucket, key string) error {
	if _, err := c.Put(ctx, bucket, key, []byte("probe 1"), Cond{}); err != nil {
		return err
	}
	defer func() { _ = c.Delete(context.WithoutCancel(ctx), bucket, key, "") }()
	_, err := c.Put(ctx, bucket, key, []byte("probe 2"), Cond{IfNoneMatch: true})
	switch {
	case errors.Is(err, ErrPrecondition):
		return nil
	case err == nil:
		return fmt.Errorf("%w: a put of s3://%s/%s with If-None-Match: * replaced the existing object", ErrNoConditionalWrites, bucket, key)
	}
	var ae smithy.APIError
	if errors.As(err, &ae) && (ae.ErrorCode() == "NotImplemented" || ae.ErrorCode() == "InvalidArgument") {
		return fmt.Errorf("%w: %w", ErrNoConditionalWrites, err)
	}
	return err
}
