package listener

import "context"

type originKey struct{}

// WithOrigin tags ctx with the agent and turn doing the work, so what is
// called from the turn (a tool asking for approval) can say whose it is.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

// OriginOf is the origin WithOrigin put in ctx.
func OriginOf(ctx context.Context) (Origin, bool) {
	o, ok := ctx.Value(originKey{}).(Origin)
	return o, ok
}
