package cli

// account by-address's sample arguments for the tests that run every
// operator command (TestRequestsRoundTrip, TestMissingDataDir), kept here
// so that the shared table stays as it is.
func init() { sampleArgs["account by-address"] = []string{"--min", "3"} }
