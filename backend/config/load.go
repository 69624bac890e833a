package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Load resolves the configuration for HomeDir(): defaults, then the config
// file if it exists, then environment overrides, then validation.
func Load() (*Config, error) { return LoadFrom(HomeDir()) }

// Now is the configuration as config.toml (and the environment) says at
// this moment, so a hand edit reaches a long-running process without a
// restart. When the file no longer loads, it is c — what the process
// started with — and the reason.
func (c *Config) Now() (*Config, error) {
	fresh, err := LoadFrom(c.Home)
	if err != nil {
		return c, err
	}
	return fresh, nil
}

// LoadFrom is Load for an explicit Jarvis home directory.
func LoadFrom(home string) (*Config, error) {
	path := FilePath(home)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return nil, errs.Wrapf(errs.Internal, "config.Load", err, "cannot read %s", path)
	}
	cfg, err := parse(data, home, os.Getenv)
	if err != nil {
		return nil, err
	}
	cfg.File = path
	if w := ReadableWarning(path); w != "" {
		cfg.Warnings = append(cfg.Warnings, w)
	}
	return cfg, nil
}

// parse builds a validated Config from TOML bytes. getenv is injected so tests
// can supply an environment without touching the process's.
func parse(data []byte, home string, getenv func(string) string) (*Config, error) {
	cfg := Defaults()
	cfg.Home = home
	if len(data) > 0 {
		var raw map[string]any
		if err := toml.Unmarshal(data, &raw); err != nil {
			return nil, errs.Wrapf(errs.Invalid, "config", describeTOMLError(err), "config.toml is not valid TOML")
		}
		chatModelSet, err := apply(&cfg, raw)
		if err != nil {
			return nil, err
		}
		if cfg.Digest.AnthropicModel != "" {
			if !chatModelSet {
				cfg.Chat.AnthropicModel = cfg.Digest.AnthropicModel
			}
			cfg.Warnings = append(cfg.Warnings,
				"config: digest.anthropic_model is a legacy key; move it to [chat] anthropic_model")
		}
	}
	applyEnv(&cfg, getenv)
	expandPaths(&cfg)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Digest.Enabled {
		if err := cfg.ValidateDigest(); err != nil {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%v (ignored while [digest] enabled = false; fix it before enabling the digest)", err))
		}
	}
	return &cfg, nil
}

func describeTOMLError(err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Errorf("line %d, column %d: %s", row, col, de.Error())
	}
	return err
}

// envOverrides maps environment variables onto the fields they replace.
var envOverrides = []struct {
	name string
	set  func(*Config, string)
}{
	{"CHAT_PROVIDER", func(c *Config, v string) { c.Chat.Provider = v }},
	{"OPENROUTER_MODEL", func(c *Config, v string) { c.OpenRouter.Model = v }},
	{"ANTHROPIC_MODEL", func(c *Config, v string) { c.Chat.AnthropicModel = v }},
	{"OLLAMA_MODEL", func(c *Config, v string) { c.Chat.OllamaModel = v }},
	{"OLLAMA_HOST", func(c *Config, v string) { c.Chat.OllamaURL = normaliseOllamaHost(v) }},
	{"VAULT_PATH", func(c *Config, v string) { c.Vault.Path = v }},
	{"PDF_WATCH_DIR", func(c *Config, v string) { c.Sync.PDFWatchDir = v }},
	{"ANTHROPIC_API_KEY", func(c *Config, v string) { c.Anthropic.APIKey = v }},
	{"OPENROUTER_API_KEY", func(c *Config, v string) { c.OpenRouter.APIKey = v }},
}

// EnvNames lists the environment variables that override config keys.
func EnvNames() []string {
	out := make([]string, len(envOverrides))
	for i, e := range envOverrides {
		out[i] = e.name
	}
	return out
}

func applyEnv(c *Config, getenv func(string) string) {
	for _, e := range envOverrides {
		if v := getenv(e.name); v != "" {
			e.set(c, v)
		}
	}
}

// OLLAMA_HOST is conventionally "host:port" without a scheme.
func normaliseOllamaHost(v string) string {
	if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
		return strings.TrimRight(v, "/")
	}
	return "http://" + strings.TrimRight(v, "/")
}

func expandPaths(c *Config) {
	for _, p := range []*string{
		&c.Digest.OutputDir, &c.RAG.Dir, &c.RAG.ModelsDir, &c.Vault.Path,
		&c.Sync.PDFWatchDir, &c.Drafts.Dir, &c.Zotero.DataDir,
	} {
		*p = expandPath(*p, c.Home)
	}
}

// apply copies the parsed TOML tables onto cfg, field by field, so a type
// error names the exact key. Unknown keys are warnings, not errors: an older
// Jarvis must still start on a config written by a newer one. It reports
// whether [chat] anthropic_model was set explicitly.
func apply(cfg *Config, raw map[string]any) (chatModelSet bool, err error) {
	root := reflect.ValueOf(cfg).Elem()
	sections := fieldsByTag(root)
	names := slices.Sorted(maps.Keys(raw))
	for _, section := range names {
		value := raw[section]
		field, ok := sections[section]
		if !ok {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("config: unknown section or key %q ignored", section))
			continue
		}
		if section == "models" {
			m, err := decodeCatalogue(value)
			if err != nil {
				return false, err
			}
			cfg.Models = m
			continue
		}
		table, ok := value.(map[string]any)
		if !ok {
			return false, invalidKey(section, "", "expected a [%s] table", section)
		}
		keys := fieldsByTag(field)
		for _, key := range slices.Sorted(maps.Keys(table)) {
			f, ok := keys[key]
			if !ok {
				cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("config: unknown key %s.%s ignored", section, key))
				continue
			}
			if err := assign(f, table[key], section, key); err != nil {
				return false, err
			}
			if section == "chat" && key == "anthropic_model" {
				chatModelSet = true
			}
		}
	}
	return chatModelSet, nil
}

func fieldsByTag(v reflect.Value) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("toml"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		out[tag] = v.Field(i)
	}
	return out
}

var quotaType = reflect.TypeOf(Quota{})

func assign(f reflect.Value, v any, section, key string) error {
	switch f.Kind() {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return invalidKey(section, key, "expected a string, got %s", describe(v))
		}
		f.SetString(s)
	case reflect.Int:
		n, ok := v.(int64)
		if !ok {
			return invalidKey(section, key, "expected an integer, got %s", describe(v))
		}
		f.SetInt(n)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return invalidKey(section, key, "expected true or false, got %s", describe(v))
		}
		f.SetBool(b)
	case reflect.Slice:
		items, ok := v.([]any)
		if !ok {
			return invalidKey(section, key, "expected an array, got %s", describe(v))
		}
		if f.Type().Elem() == quotaType {
			qs := make([]Quota, 0, len(items))
			for i, it := range items {
				q, err := decodeQuota(it)
				if err != nil {
					return invalidKey(section, key, "item %d: %v", i+1, err)
				}
				qs = append(qs, q)
			}
			f.Set(reflect.ValueOf(qs))
			return nil
		}
		ss := make([]string, 0, len(items))
		for i, it := range items {
			s, ok := it.(string)
			if !ok {
				return invalidKey(section, key, "item %d: expected a string, got %s", i+1, describe(it))
			}
			ss = append(ss, s)
		}
		f.Set(reflect.ValueOf(ss))
	default:
		return errs.New(errs.Internal, "config", "field %s.%s has unsupported kind %s", section, key, f.Kind())
	}
	return nil
}

func decodeQuota(v any) (Quota, error) {
	switch it := v.(type) {
	case []any:
		if len(it) != 2 {
			return Quota{}, fmt.Errorf(`expected ["name", limit], got %d elements`, len(it))
		}
		name, ok1 := it[0].(string)
		limit, ok2 := it[1].(int64)
		if !ok1 || !ok2 {
			return Quota{}, fmt.Errorf(`expected ["name", limit], got [%s, %s]`, describe(it[0]), describe(it[1]))
		}
		return Quota{Name: name, Limit: int(limit)}, nil
	case map[string]any:
		name, ok1 := it["name"].(string)
		limit, ok2 := it["limit"].(int64)
		if !ok1 || !ok2 {
			return Quota{}, fmt.Errorf("expected {name = \"...\", limit = N}")
		}
		return Quota{Name: name, Limit: int(limit)}, nil
	default:
		return Quota{}, fmt.Errorf(`expected ["name", limit], got %s`, describe(v))
	}
}

func decodeCatalogue(v any) (map[string][]string, error) {
	table, ok := v.(map[string]any)
	if !ok {
		return nil, invalidKey("models", "", "expected a [models] table of provider = [\"model\", ...]")
	}
	out := map[string][]string{}
	for _, provider := range slices.Sorted(maps.Keys(table)) {
		items, ok := table[provider].([]any)
		if !ok {
			return nil, invalidKey("models", provider, "expected an array of model names, got %s", describe(table[provider]))
		}
		for i, it := range items {
			s, ok := it.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return nil, invalidKey("models", provider, "item %d: expected a model name, got %s", i+1, describe(it))
			}
			out[provider] = append(out[provider], s)
		}
	}
	return out, nil
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case int64:
		return fmt.Sprintf("integer %d", x)
	case float64:
		return fmt.Sprintf("float %v", x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case nil:
		return "nothing"
	default:
		return fmt.Sprintf("%T", v)
	}
}

func invalidKey(section, key, format string, args ...any) error {
	name := section
	if key != "" {
		name = section + "." + key
	}
	return errs.New(errs.Invalid, "config", "%s: %s", name, fmt.Sprintf(format, args...))
}

// ReadableWarning returns a warning when the config file, which can hold API
// keys, is readable by group or others. It never changes the mode itself:
// the user decides.
func ReadableWarning(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Sprintf("WARNING: %s is readable by other users (mode %#o) and may hold API keys; run: chmod 600 %s",
			path, st.Mode().Perm(), path)
	}
	return ""
}
