// Package version carries the build's version string, set at link time with
// -ldflags "-X github.com/jarvis-kb/jarvis/backend/version.Version=…".
package version

// Version is "dev" for untagged builds.
var Version = "dev"
