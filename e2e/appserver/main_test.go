package appserver

import (
	"testing"

	"github.com/interpreter-dev/interpreter/dev/fakemodel"
	"github.com/interpreter-dev/interpreter/e2e/internal/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// env is [e2etest.Env] with this suite's own helpers.
type env struct{ *e2etest.Env }

func newEnv(t *testing.T, script *fakemodel.Script) *env {
	return &env{e2etest.NewEnv(t, script)}
}
