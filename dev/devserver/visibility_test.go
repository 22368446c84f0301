package devserver

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/server/common/config"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	sqliteschema "go.temporal.io/server/schema/sqlite"
)

// startListed starts a workflow (no worker runs it) on a server with the
// database file db and waits until a list shows it: its visibility record
// is written.
func startListed(t *testing.T, db string) *Server {
	t.Helper()
	s, err := Start(Options{DBFile: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	c, err := client.Dial(client.Options{HostPort: s.Address()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "listed", TaskQueue: "nobody"}, "Listed"); err != nil {
		t.Fatal(err)
	}
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{})
		if err == nil && len(resp.GetExecutions()) > 0 {
			return s
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the workflow was never listed: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// visibilityRows counts the records of the listed workflow in the
// SQLite file path.
func visibilityRows(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM executions_visibility WHERE workflow_id = 'listed'").Scan(&n); err != nil {
		t.Fatalf("counting visibility records in %s: %v", path, err)
	}
	return n
}

// A new database keeps its visibility records in a file of their own,
// which the server writes on its own connection.
func TestVisibilityRecordsAreKeptApart(t *testing.T) {
	db := filepath.Join(t.TempDir(), "temporal.db")
	s := startListed(t, db)
	vis := filepath.Join(filepath.Dir(db), "temporal-visibility.db")
	if s.VisibilityFile() != vis {
		t.Fatalf("visibility file %q, want %q", s.VisibilityFile(), vis)
	}
	if n := visibilityRows(t, vis); n != 1 {
		t.Fatalf("%d visibility records in the visibility file, want 1", n)
	}
	if n := visibilityRows(t, db); n != 0 {
		t.Fatalf("%d visibility records in the main file, want none", n)
	}
}

// A database made before the records were kept apart (one file with both
// schemas, no visibility file beside it) is used as it was: its records
// stay listed, and no second file appears.
func TestADatabaseFromBeforeKeepsItsVisibility(t *testing.T) {
	db := filepath.Join(t.TempDir(), "temporal.db")
	old := config.SQL{PluginName: sqliteplugin.PluginName, DatabaseName: db,
		ConnectAttributes: map[string]string{"mode": "rwc", "journal_mode": "wal"}}
	if err := sqliteschema.SetupSchema(&old); err != nil {
		t.Fatal(err)
	}
	s := startListed(t, db)
	if s.VisibilityFile() != "" {
		t.Fatalf("an old database got a visibility file: %s", s.VisibilityFile())
	}
	if _, err := os.Stat(VisibilityFile(db)); !os.IsNotExist(err) {
		t.Fatalf("a visibility file appeared beside an old database: %v", err)
	}
	if n := visibilityRows(t, db); n != 1 {
		t.Fatalf("%d visibility records in the old database, want 1", n)
	}
}
