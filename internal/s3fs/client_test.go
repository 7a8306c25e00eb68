package s3fs

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestNewClientWithoutClient checks what a program that links no S3 client
// gets for an s3:// table: ErrNoClient, naming the package to import. This
// package's tests link none (s3client imports s3fs, not the other way).
func TestNewClientWithoutClient(t *testing.T) {
	if HasClient() {
		t.Fatal("HasClient: true in a test binary that links no S3 client")
	}
	c, err := NewClient(context.Background(), Config{})
	if !errors.Is(err, ErrNoClient) || c != nil {
		t.Fatalf("NewClient = %v, %v; want nil, ErrNoClient", c, err)
	}
	if !strings.Contains(err.Error(), "github.com/streamsql/streamsql/connectors/filesystem/s3") {
		t.Errorf("the error names no package to import: %v", err)
	}
}
