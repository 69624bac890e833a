module github.com/jarvis-kb/jarvis

go 1.26.8

require github.com/pelletier/go-toml/v2 v2.4.3 // indirect
