package oaitest

import (
	"bytes"
	"encoding/json"
)

// MessagesEnd is the offset in r.Raw just after its last message: what a
// provider's prompt cache can keep of it for the next request.
func MessagesEnd(r Request) int {
	dec := json.NewDecoder(bytes.NewReader(r.Raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0
		}
		if key != "messages" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return 0
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return 0
		}
		end := int(dec.InputOffset())
		for dec.More() {
			var m json.RawMessage
			if dec.Decode(&m) != nil {
				return 0
			}
			end = int(dec.InputOffset())
		}
		return end
	}
	return 0
}

// PrefixKept is the share (0–1) of prev's bytes up to its last message
// that next repeats at its start: 1 when a prompt cache keyed on the
// prefix can hit in full.
func PrefixKept(prev, next Request) float64 {
	end := MessagesEnd(prev)
	if end == 0 {
		return 0
	}
	n := 0
	for n < end && n < len(next.Raw) && prev.Raw[n] == next.Raw[n] {
		n++
	}
	return float64(n) / float64(end)
}
