package app

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/tool"
	"github.com/chatrepl/chat/tool/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.ServeIfAsked() // this test binary, started as a box
	os.Exit(m.Run())
}

// shellCall asks for a command.
func shellCall(id, command string) oaitest.Reply {
	return oaitest.Answer{Calls: []oaitest.Call{{ID: id, Name: "run_shell", Args: `{"command":` + quote(command) + `}`}}}
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// TestABoxedRun: a run whose commands are boxed (as root and as an
// ordinary user): plan mode makes the box read-only and gives it back;
// the project's network file waits for trust, and once trusted its host
// is allowed; a host on no list is put to the person, whose no refuses
// it; the sandbox report says what the box allows.
func TestABoxedRun(t *testing.T) {
	if sandbox.Probe().ABI == 0 {
		t.Skip("no sandbox here")
	}
	for _, u := range asuser.Both(t) {
		if u.UID != os.Getuid() {
			t.Run("as "+u.Name, func(t *testing.T) { asuser.RunTest(t, u) })
			continue
		}
		srv := oaitest.New(t,
			shellCall("c1", "echo planned > plan.txt; echo exit=$?"), oaitest.Answer{Text: "planned"},
			shellCall("c2", `p=${HTTPS_PROXY#http://}; exec 3<>"/dev/tcp/${p%:*}/${p##*:}"; printf 'CONNECT refused.example:443 HTTP/1.1\r\nHost: refused.example:443\r\n\r\n' >&3; IFS= read -r line <&3; echo "$line"`),
			oaitest.Answer{Text: "done"})
		m := newMachine(t)
		m.file(t, ".chat/network.toml", "allow_domains = [\"trusted.example\"]\n")
		spec := m.spec(srv)
		spec.Config.Sandbox.Mode = "workspace-write"
		spec.Config.Yes = false
		asked := &yes{}
		spec.Approver = denyHosts{asked}
		r := openClosed(t, spec)
		if note := r.UntrustedNote(); !strings.Contains(note, "trusted.example") {
			t.Fatalf("the untrusted network file: %q", note)
		}
		<-r.AskHookTrust(context.Background(), asked)
		if rep := r.Network().Report(); !strings.Contains(rep, "trusted.example") {
			t.Fatalf("the trusted host is not allowed: %s", rep)
		}
		r.StartBox()
		if err := r.SetPlanning(true); err != nil || !r.Planning() {
			t.Fatalf("plan mode: %v", err)
		}
		if out := r.NewTurn(context.Background(), "write it").Run(); out.Err != nil {
			t.Fatal(out.Err)
		}
		if _, err := os.Stat(m.env.Workdir + "/plan.txt"); err == nil {
			t.Fatal("plan mode's box wrote")
		}
		if err := r.SetPlanning(false); err != nil || r.Planning() {
			t.Fatalf("leaving plan mode: %v", err)
		}
		if out := r.NewTurn(context.Background(), "connect").Run(); out.Err != nil {
			t.Fatal(out.Err)
		}
		if rep := r.Network().Report(); !strings.Contains(rep, "refused.example") {
			t.Fatalf("the refusal is not reported: %s", rep)
		}
		modes, current := r.Modes()
		if len(modes) < 3 || current != "workspace-write" {
			t.Fatalf("modes %+v current %q", modes, current)
		}
		for _, id := range []string{"read-only", PlanModeID, "workspace-write"} {
			if err := r.SetMode(id); err != nil {
				t.Fatalf("mode %s: %v", id, err)
			}
		}
		if r.Planning() || r.Sandbox() == "" {
			t.Fatal("back from plan mode, still planning")
		}
		report, err := SandboxReport(context.Background(), m.env, spec.Config, []string{"refused.example"})
		if err != nil || !strings.Contains(report, "probe refused.example:443: refused") {
			t.Fatalf("report: %v\n%s", err, report)
		}
	}
}

// denyHosts answers the box's host questions no, and everything else as
// the wrapped approver does.
type denyHosts struct{ tool.Approver }

func (d denyHosts) Approve(ctx context.Context, r tool.Request) (tool.Decision, error) {
	if r.Tool == "network" {
		return tool.Decision{Verdict: tool.Deny, Reason: "no"}, nil
	}
	return d.Approver.Approve(ctx, r)
}
