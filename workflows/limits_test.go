package workflows

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/interpreter-dev/interpreter/activities"
)

func TestCheckInput(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"short", "hello", ""},
		{"at the limit", strings.Repeat("x", MaxInputChars), ""},
		{"multi-byte, at the limit of characters", strings.Repeat("é", MaxInputChars/2), ""},
		{"one character over", strings.Repeat("x", MaxInputChars+1), "Input exceeds the maximum length of 1048576 characters."},
		{"multi-byte, one over", strings.Repeat("é", MaxInputChars+1), "maximum length of 1048576 characters"},
		{"few characters, many bytes as JSON", strings.Repeat("<", 300_000), "Input exceeds the maximum size of 1572864 bytes (encoded as JSON; it is 1800002)."},
		{"control characters", strings.Repeat("\x01", 300_000), "maximum size of 1572864 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckInput("Input", tc.text)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestTruncateText(t *testing.T) {
	require.Equal(t, "short", TruncateText("short", 100))
	s := strings.Repeat("日本", 50_000) // 300,000 bytes
	out := TruncateText(s, 1000)
	require.LessOrEqual(t, len(out), 1000)
	require.True(t, utf8.ValidString(out), "cut at a character boundary")
	require.Contains(t, out, "bytes cut: the result was too long]")
	require.Contains(t, out, "of 300000 bytes cut")
}

func TestTruncateDynamic(t *testing.T) {
	a := DynamicAnswer{ThreadID: "th", ItemID: "item_0", Success: true, Content: []DynamicContent{
		{Type: "inputText", Text: strings.Repeat("a", 40<<10)},
		{Type: "inputImage", ImageURL: "data:image/png;base64," + strings.Repeat("A", 3<<20)},
		{Type: "inputText", Text: strings.Repeat("b", 3<<20)},
		{Type: "inputText", Text: "lost"},
	}}
	require.ErrorContains(t, CheckToolResult(a), "answer refused: the tool result holds")
	got := TruncateDynamic(a)
	require.NoError(t, CheckToolResult(got))
	require.Len(t, got.Content, 4)
	require.Equal(t, a.Content[0], got.Content[0], "what fits is kept")
	require.Equal(t, "[an image of 3145750 bytes was left out: the tool result was too long]", got.Content[1].Text)
	require.Contains(t, got.Content[2].Text, "bytes cut: the result was too long]")
	require.Equal(t, "[1 more parts left out: the tool result was too long]", got.Content[3].Text)

	small := DynamicAnswer{Content: []DynamicContent{{Type: "inputText", Text: "ok"}}}
	require.Equal(t, small, TruncateDynamic(small))
}

// A turn over the input limits is refused by the thread's validator, and
// the thread goes on taking turns.
func TestThreadRefusesOversizedInput(t *testing.T) {
	env := newEnv(t)
	mockModel(env, &fakeModel{answer: func(n int, in activities.ModelInput) (*activities.ModelOutput, error) {
		return answer(n, "answer "+itoa(n)), nil
	}})
	big := testConfig()
	var tooLong, tooBig, fine *turnStart
	env.RegisterDelayedCallback(func() {
		tooLong = startTurn(env, StartTurnRequest{Prompt: strings.Repeat("x", MaxInputChars+1)})
		tooBig = startTurn(env, StartTurnRequest{Prompt: strings.Repeat("y", MaxInputChars)})
		fine = startTurn(env, StartTurnRequest{Prompt: "hello"})
	}, 0)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	big.DeveloperInstructions = strings.Repeat("d", MaxInputChars)
	env.ExecuteWorkflow(ThreadWorkflow, ThreadInput{ThreadID: testThreadID, Config: big})
	requireCanceled(t, env)
	require.False(t, tooLong.accepted)
	require.ErrorContains(t, tooLong.rejected, "Input exceeds the maximum length of 1048576 characters.")
	require.False(t, tooBig.accepted)
	require.ErrorContains(t, tooBig.rejected, "and the thread's settings")
	requireAccepted(t, fine, 1)
}

// Steered input over the limits is refused; the turn goes on.
func TestSteerRefusesOversizedInput(t *testing.T) {
	env, _ := dynamicEnv(t, dynamicCall("c1", "lookup_ticket", `{}`))
	var u updates
	env.RegisterDelayedCallback(func() {
		steer := SteerRequest{ThreadID: testThreadID, TurnID: testTurnID}
		steer.Prompt = strings.Repeat("x", MaxInputChars+1)
		u.send(env, "long", UpdateSteer, steer)
		steer.Prompt = strings.Repeat("y", MaxInputChars)
		u.send(env, "first", UpdateSteer, steer)
		u.send(env, "second", UpdateSteer, steer)
		u.send(env, "answer", UpdateAnswerDynamic, DynamicAnswer{ThreadID: testThreadID, ItemID: "item_0", Success: true,
			Content: []DynamicContent{{Type: "inputText", Text: strings.Repeat("z", MaxToolResultBytes+1)}}})
		u.send(env, "cut", UpdateAnswerDynamic, TruncateDynamic(DynamicAnswer{ThreadID: testThreadID, ItemID: "item_0", Success: true,
			Content: []DynamicContent{{Type: "inputText", Text: strings.Repeat("z", MaxToolResultBytes+1)}}}))
	}, time.Minute)
	env.ExecuteWorkflow(TurnWorkflow, turnInput(dynamicConfig()))
	require.ErrorContains(t, u.err("long"), "Input exceeds the maximum length of 1048576 characters.")
	require.NoError(t, u.err("first"))
	require.ErrorContains(t, u.err("second"), "steer refused: input steered before the next model call would exceed")
	require.ErrorContains(t, u.err("answer"), "answer refused: the tool result holds 65537 bytes")
	require.NoError(t, u.err("cut"))
	require.Equal(t, StatusCompleted, turnResult(t, env).Status)
}

func TestCheckThreadID(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{"th-1", ""},
		{"th-1/turn-3", "that is a turn id (th-1/turn-3); its thread is th-1"},
		{TurnWorkflowID("a/b", 12), "that is a turn id (a/b/turn-12); its thread is a/b"},
		{"th-1/turn-", ""},
		{"th-1/turn-x", ""},
		{"/turn-1", ""},
	} {
		err := CheckThreadID(tc.id)
		if tc.want == "" {
			require.NoError(t, err, tc.id)
			continue
		}
		require.EqualError(t, err, tc.want)
	}
}
