package mcpclient

import "context"

// Probe statuses.
const (
	ProbeOK       = "ok"
	ProbeFailed   = "failed"
	ProbeDisabled = "disabled"
)

// Probe is what starting one server and asking for its tools found.
type Probe struct {
	// Status is ProbeOK or ProbeFailed (ProbeDisabled is for callers
	// that skip a server).
	Status string
	Error  string
	// Tools are the tool names the server lists, in its order.
	Tools []string
}

// ProbeTools starts each server at once (each within its startup timeout)
// and lists its tools, for a person checking the configuration. The
// result is in the order of servers.
func ProbeTools(ctx context.Context, servers []Server, sec Secrets) []Probe {
	pool := NewPool(len(servers)+1, sec)
	defer pool.Close()
	out := make([]Probe, len(servers))
	done := make(chan struct{})
	for i, s := range servers {
		go func() {
			defer func() { done <- struct{}{} }()
			tools, err := pool.ListTools(ctx, "cli", s)
			if err != nil {
				out[i] = Probe{Status: ProbeFailed, Error: err.Error(), Tools: []string{}}
				return
			}
			out[i] = Probe{Status: ProbeOK, Tools: []string{}}
			for _, t := range tools {
				out[i].Tools = append(out[i].Tools, t.Name)
			}
		}()
	}
	for range servers {
		<-done
	}
	return out
}
