package gitignore

import . "gopkg.in/check.v1"

// MatcherSuite runs matcher_test.go's test. Upstream declares it in
// dir_test.go with the file systems its directory tests read, which this
// copy leaves out with dir.go (see CHAT-PATCH.md).
type MatcherSuite struct{}

var _ = Suite(&MatcherSuite{})
