package llm

import (
	"context"
	"sort"
	"strings"
	"unicode"
)

// Models lists the model ids the server offers, sorted.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	ctx, x := withExchange(ctx)
	list, err := c.oa.ListModels(ctx)
	if err != nil {
		return nil, c.wrapAt(ctx, err, x, Redact(c.cfg.BaseURL)+"/models")
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		// A model id is a name; one with control or bidi characters is an
		// attack on the terminal it would be shown in, not a model.
		if m.ID != "" && strings.IndexFunc(m.ID, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }) < 0 {
			ids = append(ids, m.ID)
		}
	}
	sort.Strings(ids)
	return ids, nil
}
