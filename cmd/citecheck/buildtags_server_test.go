//go:build citecheck_server

package main

// testBuildTags are the tags the test binary was built with, so that a test
// that builds citecheck builds the same command it tests.
const testBuildTags = "citecheck_server"
