package activities

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// startedCommands is the host-local record of the commands that local
// activities started: one file per command, under the worker's
// interpreter home, written (and synced) before the command's process
// starts. Workers of one machine share it. A local activity's outcome
// reaches history only when its workflow task completes; when the task
// fails or its worker dies first, the next attempt finds the record and
// reports the command interrupted rather than running it again. The turn
// forgets a command's record once its outcome is in history.
type startedCommands struct {
	dir string
}

// started returns the worker's record.
func (a *Activities) started() *startedCommands {
	home := a.Home
	if home == "" {
		home = a.Store.Dir()
	}
	return &startedCommands{dir: filepath.Join(home, "started-commands")}
}

func (s *startedCommands) turnDir(turn string) string {
	return filepath.Join(s.dir, url.PathEscape(turn))
}

// record leaves the record of turn's command key; fresh is false when
// it was there already.
func (s *startedCommands) record(turn, key string) (fresh bool, err error) {
	dir := s.turnDir(turn)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("recording a started command: %w", err)
	}
	p := filepath.Join(dir, url.PathEscape(key))
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("recording a started command: %w", err)
	}
	_, werr := f.WriteString(strconv.Itoa(os.Getpid()) + " " + time.Now().UTC().Format(time.RFC3339Nano) + "\n")
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr, syncDir(dir)); err != nil {
		// Not known to be on disk: the command must not start.
		return false, fmt.Errorf("recording a started command: %w", err)
	}
	return true, nil
}

// forget removes the records of turn's commands keys, and the turn's
// folder once it is empty.
func (s *startedCommands) forget(turn string, keys []string) {
	if len(keys) == 0 {
		return
	}
	dir := s.turnDir(turn)
	for _, k := range keys {
		_ = os.Remove(filepath.Join(dir, url.PathEscape(k)))
	}
	_ = os.Remove(dir) // fails while other records remain
}

// has tells whether turn's command key has a record.
func (s *startedCommands) has(turn, key string) bool {
	_, err := os.Stat(filepath.Join(s.turnDir(turn), url.PathEscape(key)))
	return err == nil
}

// syncDir makes a new entry of dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}
