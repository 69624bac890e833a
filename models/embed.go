// Package models ships the model manifest: which embedding and reranking
// models Jarvis uses by default, where their files come from, and the
// checksums that pin them. The download and install code lives in
// backend/models.
package models

import _ "embed"

// Manifest is the raw manifest.json.
//
//go:embed manifest.json
var Manifest []byte
