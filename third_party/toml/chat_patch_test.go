package toml

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestLocalZoneReadOnFirstUse checks chat's patch: the local offset of
// local dates is asked when the first one is parsed, not in package
// initialisation. In a fresh process started in UTC, the time zone is
// changed before anything reads it; a local date must then be in the new
// zone (upstream read UTC at init).
func TestLocalZoneReadOnFirstUse(t *testing.T) {
	if os.Getenv("CHAT_TOML_FIRST_USE") == "" {
		if _, err := os.Stat("/usr/share/zoneinfo/Asia/Kolkata"); err != nil {
			t.Skip("no time zone database:", err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestLocalZoneReadOnFirstUse$", "-test.v")
		cmd.Env = append(os.Environ(), "CHAT_TOML_FIRST_USE=1", "TZ=UTC")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	os.Setenv("TZ", "Asia/Kolkata")
	var v struct{ D time.Time }
	if _, err := Decode("D = 2024-01-02T03:04:05", &v); err != nil {
		t.Fatal(err)
	}
	if _, offset := v.D.Zone(); offset != 5*3600+30*60 {
		t.Fatalf("a local date-time at offset %d s: the local zone was read before the first one", offset)
	}
}
