package s3_test

import (
	"context"
	"testing"

	_ "github.com/streamsql/streamsql/connectors/filesystem/s3"
	"github.com/streamsql/streamsql/internal/s3fs"
)

// TestRegistersTheClient checks that importing the package gives the
// filesystem connector an S3 client. Making one reads the AWS
// configuration but connects nowhere.
func TestRegistersTheClient(t *testing.T) {
	if !s3fs.HasClient() {
		t.Fatal("importing connectors/filesystem/s3 registered no S3 client")
	}
	c, err := s3fs.NewClient(context.Background(), s3fs.Config{Endpoint: "http://127.0.0.1:1", PathStyle: true, AccessKey: "k", SecretKey: "s", Region: "us-east-1"})
	if err != nil || c == nil {
		t.Fatalf("NewClient = %v, %v", c, err)
	}
}
