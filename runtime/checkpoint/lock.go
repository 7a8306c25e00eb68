package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockFile is the name of the lock file in a job's checkpoint folder.
const LockFile = ".lock"

// ErrLocked is wrapped by the error of Dir.Lock when another process
// holds the job's checkpoint folder.
var ErrLocked = errors.New("checkpoint folder is in use")

// Lock takes an exclusive lock on the job's checkpoint folder (flock on
// its LockFile, released by the returned function or when the process
// ends, also by SIGKILL), so that a second process of the same job fails
// at once instead of writing the same checkpoint ids and fencing the
// first one's transactions. The holder writes its process id, host and
// start time into the file; the error of a second Lock names them. The
// lock holder also deletes temporary files that a crash left behind.
func (d *Dir) Lock() (unlock func() error, err error) {
	p := filepath.Join(d.path, LockFile)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock checkpoint folder %s: %w", d.path, err)
	}
	held, err := flock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock checkpoint folder %s: %w", d.path, err)
	}
	if held {
		holder, _ := os.ReadFile(p)
		f.Close()
		who := strings.TrimSpace(string(holder))
		if who == "" {
			who = "holder unknown"
		}
		return nil, fmt.Errorf("%w: %s is locked by another process of job %q (%s); is the job already running? "+
			"Two processes of one job would overwrite each other's checkpoints and fence each other's transactions",
			ErrLocked, d.path, d.job, who)
	}
	host, _ := os.Hostname()
	info := fmt.Sprintf("pid %d on host %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(info), 0)
	}
	d.removeTemporary()
	d.removeTemporaryFiles()
	return f.Close, nil
}

// removeTemporary deletes temporary files of writes that a crash
// interrupted: they are not checkpoints.
func (d *Dir) removeTemporary() {
	ents, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-"+prefix) {
			_ = os.Remove(filepath.Join(d.path, e.Name()))
		}
	}
}
