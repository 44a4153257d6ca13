package pricing

import (
	"math"
	"testing"

	"charm.land/catwalk/pkg/embedded"

	"github.com/chatrepl/chat/session"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	var provider, endpoint, model string
	var in, out float64
	for _, p := range embedded.GetAll() {
		if hostOf(p.APIEndpoint) == "" {
			continue
		}
		for _, m := range p.Models {
			if m.CostPer1MIn > 0 && m.CostPer1MOut > 0 {
				provider, endpoint, model, in, out = p.Name, p.APIEndpoint, m.ID, m.CostPer1MIn, m.CostPer1MOut
				break
			}
		}
		if model != "" {
			break
		}
	}
	if model == "" {
		t.Fatal("the catalog has no priced model with an endpoint")
	}
	p, ok := Lookup(model, endpoint, Override{})
	if !ok || p.Input != in || p.Output != out || p.Source != "catalog: "+provider {
		t.Errorf("%s at %s: %+v %v", model, endpoint, p, ok)
	}
	u := session.Usage{Prompt: 1_000_000, Completion: 500_000}
	if got, want := p.Cost(u), in+out/2; math.Abs(got-want) > 1e-9 {
		t.Errorf("cost %v, want %v", got, want)
	}
	if p, ok := Lookup(model, "http://127.0.0.1:8080/v1", Override{}); !ok || p.Cost(u) != 0 || p.Source != "local server" {
		t.Errorf("local: %+v %v", p, ok)
	}
	if p, ok := Lookup(model, "http://127.0.0.1:4000/v1", Override{Catalog: provider}); !ok || p.Input != in {
		t.Errorf("a local proxy naming the catalog: %+v %v", p, ok)
	}
	if _, ok := Lookup("no-such-model-anywhere", "https://api.example.com/v1", Override{}); ok {
		t.Error("an unknown model got a price")
	}
	two, half := 2.0, 0.5
	if p, ok := Lookup("no-such-model-anywhere", "https://api.example.com/v1", Override{Input: &two, CachedInput: &half}); !ok || p.Cost(session.Usage{Prompt: 1_000_000, Cached: 500_000}) != 1.25 {
		t.Errorf("config prices: %+v %v", p, ok)
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	for usd, want := range map[float64]string{0: "$0", 0.00123: "$0.0012", 0.123: "$0.123", 12.345: "$12.35"} {
		if got := Format(usd); got != want {
			t.Errorf("Format(%v) = %s, want %s", usd, got, want)
		}
	}
}
