package llm

import (
	"bytes"
	"encoding/json"
)

// chunkDecoder decodes the chunks of one stream into one reused body.
//
// json.Unmarshal starts from nothing on every call: a decode state, a
// scanner stack checked twice, and a path of field names grown for error
// messages, ten allocations a chunk before any text. A json.Decoder keeps
// all of those between values, so one per stream fed each line in turn
// pays them once. The body's choices keep their backing array too.
type chunkDecoder struct {
	line bytes.Reader
	dec  *json.Decoder
	fed  int64 // bytes given to dec
	body wireBody[deltaChoice]
}

func newChunkDecoder() *chunkDecoder {
	d := &chunkDecoder{}
	d.dec = json.NewDecoder(&d.line)
	return d
}

// decode reads one chunk's JSON. The body it returns is valid until the
// next call. A line that is not exactly one JSON value gets the error
// json.Unmarshal gives it, so the message does not depend on the reuse.
func (d *chunkDecoder) decode(raw []byte) (*wireBody[deltaChoice], error) {
	// Decoding into a used value merges into it: start from zero, keeping
	// only the array behind the choices.
	choices := d.body.Choices[:cap(d.body.Choices)]
	clear(choices)
	d.body = wireBody[deltaChoice]{Choices: choices[:0]}
	d.line.Reset(raw)
	d.fed += int64(len(raw))
	if err := d.dec.Decode(&d.body); err != nil || d.dec.InputOffset() != d.fed {
		var fresh wireBody[deltaChoice]
		if err := json.Unmarshal(raw, &fresh); err != nil {
			return nil, err
		}
		// json.Unmarshal took what the decoder did not: the decoder is
		// out of step with the lines now, so start a new one.
		d.dec, d.fed = json.NewDecoder(&d.line), 0
		d.body = fresh
	}
	return &d.body, nil
}
