package llm

import (
	"context"
	"sort"
)

// Models lists the model ids the server offers, sorted.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	ctx, x := withExchange(ctx)
	list, err := c.oa.ListModels(ctx)
	if err != nil {
		return nil, c.wrap(ctx, err, x)
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	sort.Strings(ids)
	return ids, nil
}
