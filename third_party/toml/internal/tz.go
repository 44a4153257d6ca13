package internal

import (
	"sync"
	"time"
)

// Timezones used for local datetime, date, and time TOML types.
//
// The exact way times and dates without a timezone should be interpreted is not
// well-defined in the TOML specification and left to the implementation. These
// defaults to current local timezone offset of the computer.
//
// TODO:
// Ideally we'd like to offer people the ability to configure the used timezone
// by setting Decoder.Timezone and Encoder.Timezone; however, this is a bit
// tricky: the reason we use three different variables for this is to support
// round-tripping – without these specific TZ names we wouldn't know which
// format to use.
//
// There isn't a good way to encode this right now though, and passing this sort
// of information also ties in to various related issues such as string format
// encoding, encoding of comments, etc.
//
// So, for the time being, just put this in internal until we can write a good
// comprehensive API for doing all of this.
//
// The reason they're exported is because they're referred from in e.g.
// internal/tag.
//
// Note that this behaviour is valid according to the TOML spec as the exact
// behaviour is left up to implementations.
//
// chat patch: the three are made on first use. Upstream made them in
// package initialisation, where asking the local offset reads the system's
// time zone file: 0.35-0.9 ms of every start of every program that links
// the package, which most runs of chat, reading a config file without a
// local date in it, never need (see CHAT-PATCH.md).
var localZones = sync.OnceValue(func() [3]*time.Location {
	_, localOffset := time.Now().Zone()
	return [3]*time.Location{
		time.FixedZone("datetime-local", localOffset),
		time.FixedZone("date-local", localOffset),
		time.FixedZone("time-local", localOffset),
	}
})

// LocalDatetime is the zone of a local date-time.
func LocalDatetime() *time.Location { return localZones()[0] }

// LocalDate is the zone of a local date.
func LocalDate() *time.Location { return localZones()[1] }

// LocalTime is the zone of a local time.
func LocalTime() *time.Location { return localZones()[2] }
