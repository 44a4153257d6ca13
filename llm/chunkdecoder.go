package llm

import (
	"bytes"
	"encoding/json"

	segjson "github.com/segmentio/encoding/json"
)

// chunkDecoder decodes the chunks of one stream into one reused body.
//
// Decoding every chunk is most of what a stream costs chat. encoding/json
// reads each value twice (once to find or check it, once to decode it) and
// rebuilds its decode state per call; segmentio's decoder, a drop-in
// already linked through the MCP SDK, reads it once with compiled
// per-type decoders. A line it does not take as exactly one value gets
// encoding/json's verdict and error, so the message (and any leniency)
// is the standard library's. The body's choices keep their backing array.
type chunkDecoder struct {
	body wireBody[deltaChoice]
}

func newChunkDecoder() *chunkDecoder { return &chunkDecoder{} }

// decode reads one chunk's JSON. The body it returns is valid until the
// next call.
func (d *chunkDecoder) decode(raw []byte) (*wireBody[deltaChoice], error) {
	// Decoding into a used value merges into it: start from zero, keeping
	// only the array behind the choices.
	choices := d.body.Choices[:cap(d.body.Choices)]
	clear(choices)
	d.body = wireBody[deltaChoice]{Choices: choices[:0]}
	if rest, err := segjson.Parse(raw, &d.body, 0); err == nil && len(bytes.TrimSpace(rest)) == 0 {
		return &d.body, nil
	}
	var fresh wireBody[deltaChoice]
	if err := json.Unmarshal(raw, &fresh); err != nil {
		return nil, err
	}
	d.body = fresh
	return &d.body, nil
}
