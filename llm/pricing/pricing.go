// Package pricing says what a model costs and how large its window is,
// from the model catalog Crush maintains (charm.land/catwalk, embedded:
// no network), overridden per model by the config. A model on a local
// server costs nothing; a model the catalog does not know has no price,
// and nothing here makes one up.
package pricing

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"

	"charm.land/catwalk/pkg/catwalk"
	"charm.land/catwalk/pkg/embedded"

	"github.com/chatrepl/chat/session"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input, Output float64
	// CachedInput is the price of prompt tokens read from the provider's
	// cache; it equals Input where the catalog knows no discount.
	CachedInput float64
	// Source says where the price comes from ("catalog: OpenAI",
	// "config", "local server").
	Source string
}

// Cost is what u costs at p.
func (p Price) Cost(u session.Usage) float64 {
	cached := min(u.Cached, u.Prompt)
	return (float64(u.Prompt-cached)*p.Input + float64(cached)*p.CachedInput + float64(u.Completion)*p.Output) / 1e6
}

// Override is what the config says of a model's price; nil fields leave
// the catalog's. Catalog names a catalog provider to take the price from
// whatever the endpoint (a local proxy in front of a hosted model).
type Override struct {
	Input, Output, CachedInput *float64
	Catalog                    string
}

// Lookup is the price of model served at baseURL: the config's where it
// says, else free on a local server (loopback or a private address)
// unless the config names a catalog provider, else the catalog's entry
// from the provider whose endpoint baseURL is, else from any provider
// that lists the model under that id. ok is false when nothing knows.
func Lookup(model, baseURL string, o Override) (Price, bool) {
	p, ok := fromCatalog(model, baseURL, o.Catalog)
	if !ok && o.Catalog == "" && local(baseURL) {
		p, ok = Price{Source: "local server"}, true
	}
	if o.Input != nil || o.Output != nil || o.CachedInput != nil {
		if !ok {
			p = Price{}
		}
		p.Source, ok = "config", true
		if o.Input != nil {
			p.Input, p.CachedInput = *o.Input, *o.Input
		}
		if o.Output != nil {
			p.Output = *o.Output
		}
		if o.CachedInput != nil {
			p.CachedInput = *o.CachedInput
		}
	}
	return p, ok
}

// Window is the catalog's context window for model (0: not listed, or a
// local server, whose window is what it runs: ask it). Reading the
// catalog costs milliseconds, so a local run never does.
func Window(model, baseURL string) int {
	if local(baseURL) {
		return 0
	}
	if e, ok := find(model, baseURL, ""); ok {
		return int(e.model.ContextWindow)
	}
	return 0
}

// Warm reads the catalog in the background, while the first request
// waits for the network, so pricing its answer costs nothing then.
func Warm(baseURL string) {
	if !local(baseURL) {
		go catalog()
	}
}

// Format is an amount of dollars as people read it: cents where they
// matter, more digits for the fractions a turn costs.
func Format(usd float64) string {
	switch {
	case usd == 0:
		return "$0"
	case usd < 0.01:
		return fmt.Sprintf("$%.4f", usd)
	case usd < 1:
		return fmt.Sprintf("$%.3f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

func fromCatalog(model, baseURL, provider string) (Price, bool) {
	if local(baseURL) && provider == "" {
		return Price{}, false
	}
	e, ok := find(model, baseURL, provider)
	if !ok {
		return Price{}, false
	}
	m := e.model
	p := Price{Input: m.CostPer1MIn, Output: m.CostPer1MOut, CachedInput: m.CostPer1MIn, Source: "catalog: " + e.provider}
	// The catalog's "out cached" is the cache read price (its "in cached"
	// is the price of writing to the cache, which OpenAI-style APIs do
	// not report apart).
	if m.CostPer1MOutCached > 0 {
		p.CachedInput = m.CostPer1MOutCached
	}
	return p, true
}

type entry struct {
	provider, id, host string
	model              catwalk.Model
}

// catalog is the embedded catalog, read once, when first asked.
var catalog = sync.OnceValue(func() []entry {
	var out []entry
	for _, p := range embedded.GetAll() {
		host := hostOf(p.APIEndpoint)
		for _, m := range p.Models {
			out = append(out, entry{provider: p.Name, id: string(p.ID), host: host, model: m})
		}
	}
	return out
})

// find picks the catalog's entry for model: from the named provider, or
// the provider at baseURL's host, or else the first provider listing it
// (by its id, or by the id without a vendor prefix, as OpenRouter names
// them).
func find(model, baseURL, provider string) (entry, bool) {
	if model == "" {
		return entry{}, false
	}
	host := hostOf(baseURL)
	var first *entry
	all := catalog()
	for i := range all {
		e := &all[i]
		if e.model.ID != model && !strings.HasSuffix(e.model.ID, "/"+model) && !strings.HasSuffix(model, "/"+e.model.ID) {
			continue
		}
		switch {
		case provider != "" && (strings.EqualFold(e.id, provider) || strings.EqualFold(e.provider, provider)):
			return *e, true
		case provider == "" && host != "" && e.host == host:
			return *e, true
		case first == nil && e.model.ID == model:
			first = e
		}
	}
	if first == nil || provider != "" {
		return entry{}, false
	}
	return *first, true
}

func hostOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || strings.HasPrefix(endpoint, "$") {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// IsLocal reports whether baseURL is on this machine or a private
// network: a server whose window is what it runs, and which costs nothing.
func IsLocal(baseURL string) bool { return local(baseURL) }

// local reports whether baseURL is on this machine or a private network.
func local(baseURL string) bool {
	host := hostOf(baseURL)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".local") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
}
