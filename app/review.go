package app

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"

	"github.com/chatrepl/chat/tool/sandbox"
)

// ReviewPrompt is what a review asks, before the changes; a prompt file
// named review (.chat/commands/review.md, …) stands in for it, its
// $ARGUMENTS the base reviewed against.
const ReviewPrompt = `Review the changes below as a careful senior engineer would before they are merged.
Look for bugs first (wrong logic, missing error handling, races, security holes, data loss), then
for what makes the code hard to maintain, then for style only where it hides a bug. You may read
files and run read-only commands to check a finding; you cannot change anything. For each finding
give the file, the line in the new version, how severe it is, a short title and why it matters
(with the fix when it is clear). Say nothing about what is fine.`

// ReviewSchema is the shape of a review's answer: its findings.
var ReviewSchema = json.RawMessage(`{"type":"object","properties":{"findings":{"type":"array","items":{"type":"object",` +
	`"properties":{"severity":{"type":"string","enum":["critical","high","medium","low","info"]},"file":{"type":"string"},` +
	`"line":{"type":"integer"},"title":{"type":"string"},"detail":{"type":"string"}},"required":["severity","file","line","title"]}}},` +
	`"required":["findings"]}`)

// Finding is one thing a review found.
type Finding struct {
	Severity string `json:"severity"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Title    string `json:"title"`
	Detail   string `json:"detail,omitempty"`
}

var severities = []string{"critical", "high", "medium", "low", "info"}

// ParseFindings reads a review's answer (ReviewSchema), most severe first.
func ParseFindings(answer string) ([]Finding, error) {
	if _, err := ParseStructured(ReviewSchema, answer); err != nil {
		return nil, err
	}
	var v struct {
		Findings []Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(structuredText(answer)), &v); err != nil {
		return nil, err
	}
	slices.SortStableFunc(v.Findings, func(a, b Finding) int {
		return cmp.Or(slices.Index(severities, a.Severity)-slices.Index(severities, b.Severity), strings.Compare(a.File, b.File), a.Line-b.Line)
	})
	return v.Findings, nil
}

// structuredText is the JSON of an answer that may be fenced.
func structuredText(answer string) string {
	s := strings.TrimSpace(answer)
	if i := strings.Index(s, "{"); i >= 0 {
		if j := strings.LastIndex(s, "}"); j > i {
			return s[i : j+1]
		}
	}
	return s
}

// ErrNothingToReview is a review of no changes.
var ErrNothingToReview = errors.New("nothing to review")

// maxReviewDiff bounds the diff a review sends.
const maxReviewDiff = 200 << 10

var refName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/@^~-]*$`)

// ReviewRequest is the message of a review of the working tree's changes
// (base ""), or of the branch against base (from where they parted, the
// working tree included): the prompt (the person's review prompt file,
// else ReviewPrompt) and the diff, which git makes in the read-only box
// (a repository's config must not run a program as the person).
func (r *Run) ReviewRequest(ctx context.Context, base string) (text string, files int, err error) {
	if base != "" && !refName.MatchString(base) {
		return "", 0, fmt.Errorf("%q is not a branch, tag or commit name", base)
	}
	against := "HEAD"
	if base != "" {
		against = "$(git merge-base " + base + " HEAD)"
	}
	git := "git --no-pager -c core.fsmonitor=false -c core.pager=cat -c diff.external= "
	script := "set -e; git rev-parse --git-dir >/dev/null; " +
		git + "diff --no-ext-diff --no-textconv --no-color " + against + " --; " +
		"git ls-files --others --exclude-standard -z | xargs -0 -r -n1 " + git + "diff --no-ext-diff --no-textconv --no-color --no-index -- /dev/null || true"
	var out, errOut bytes.Buffer
	code, err := r.gitInBox(ctx, script, &out, &errOut)
	if err != nil {
		return "", 0, err
	}
	if code != 0 {
		msg := strings.TrimSpace(errOut.String())
		if strings.Contains(msg, "not a git repository") {
			return "", 0, errors.New("not in a git repository: a review reads the changes git knows")
		}
		return "", 0, fmt.Errorf("git could not make the diff: %s", cmp.Or(msg, fmt.Sprintf("exit status %d", code)))
	}
	diff := out.String()
	if strings.TrimSpace(diff) == "" {
		what := "in the working tree"
		if base != "" {
			what = "against " + base
		}
		return "", 0, fmt.Errorf("%w: no changes %s", ErrNothingToReview, what)
	}
	files = strings.Count(diff, "\ndiff --git ") + boolInt(strings.HasPrefix(diff, "diff --git "))
	note := ""
	if len(diff) > maxReviewDiff {
		diff, note = diff[:maxReviewDiff], fmt.Sprintf("\n(the diff was cut at %d KiB: read the files for the rest)", maxReviewDiff>>10)
	}
	prompt := ReviewPrompt
	cmds, _, _ := r.PromptFiles()
	for _, c := range cmds {
		if c.Name == "review" && r.PromptFileTrusted(c) {
			prompt = c.Expand(base)
		}
	}
	what := "The changes of the working tree (against HEAD)"
	if base != "" {
		what = "The changes of this branch against " + base + " (from where they parted, uncommitted ones included)"
	}
	return prompt + "\n\n" + what + ":\n```diff\n" + strings.TrimRight(diff, "\n") + "\n```" + note, files, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// gitInBox runs a shell script of git commands in the run's box (read-
// only: it only reads), or directly with the sandbox off.
func (r *Run) gitInBox(ctx context.Context, script string, out, errOut *bytes.Buffer) (int, error) {
	if r.shell.Boxed() {
		return r.shell.RunHook(ctx, r.spec.Env.Workdir, r.shell.Env, script, sandbox.IO{Stdout: out, Stderr: errOut})
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = r.spec.Env.Workdir, r.shell.Env, out, errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}

// SetReviewing runs the next turns as a review: nothing written (plan
// mode's box and tools), without plan mode's words to the model.
func (r *Run) SetReviewing(on bool) error {
	if on == r.reviewing {
		return nil
	}
	if on {
		before := r.Planning()
		if err := r.SetPlanning(true); err != nil && !r.Planning() {
			return err // no read-only box: no review
		}
		r.planBeforeReview, r.reviewing = before, true
		r.tools.Policy().SetReviewing(true)
		return nil
	}
	r.reviewing = false
	r.tools.Policy().SetReviewing(false)
	if r.planBeforeReview {
		return nil // the person's plan mode goes on
	}
	return r.SetPlanning(false)
}
