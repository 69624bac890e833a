package config

import (
	"strings"
	"testing"
)

// TestLedgerDefaultsKeepBodiesThirtyDaysAndDoNotAsk: a home without a
// config.toml keeps request bodies 30 days and sends without asking, as
// issue #30 specifies; Defaults says the same.
func TestLedgerDefaultsKeepBodiesThirtyDaysAndDoNotAsk(t *testing.T) {
	cfg := mustLoad(t, t.TempDir())
	if cfg.Ledger.KeepDays != 30 {
		t.Errorf("ledger.keep_days = %d, want 30", cfg.Ledger.KeepDays)
	}
	if cfg.Ledger.AskBeforeSending {
		t.Error("ledger.ask_before_sending is on by default, want off")
	}
	if d := Defaults(); d.Ledger.KeepDays != 30 || d.Ledger.AskBeforeSending {
		t.Errorf("Defaults().Ledger = %+v", d.Ledger)
	}
	// A config.toml that says nothing about the ledger keeps the defaults.
	cfg = mustLoad(t, writeConfig(t, "[chat]\nmax_iterations = 5\n"))
	if cfg.Ledger.KeepDays != 30 || cfg.Ledger.AskBeforeSending {
		t.Errorf("ledger with an unrelated config.toml: %+v", cfg.Ledger)
	}
}

// TestLedgerKeepDaysZeroLoadsAsZero: keep_days = 0 means "keep no body";
// the loader must not mistake the zero for "unset" and put 30 back.
func TestLedgerKeepDaysZeroLoadsAsZero(t *testing.T) {
	cfg := mustLoad(t, writeConfig(t, "[ledger]\nkeep_days = 0\n"))
	if cfg.Ledger.KeepDays != 0 {
		t.Errorf("keep_days = 0 loaded as %d", cfg.Ledger.KeepDays)
	}
	if cfg.Ledger.AskBeforeSending {
		t.Error("ask_before_sending turned on by keep_days = 0")
	}
	for _, w := range cfg.Warnings {
		if strings.Contains(w, "ledger") {
			t.Errorf("warning about a valid [ledger]: %s", w)
		}
	}

	cfg = mustLoad(t, writeConfig(t, "[ledger]\nkeep_days = 7\nask_before_sending = true\n"))
	if cfg.Ledger.KeepDays != 7 || !cfg.Ledger.AskBeforeSending {
		t.Errorf("[ledger] keep_days = 7, ask_before_sending = true loaded as %+v", cfg.Ledger)
	}
}

// A negative keep_days is refused, naming the key, rather than read as 0.
func TestNegativeKeepDaysIsRefused(t *testing.T) {
	home := t.TempDir()
	if err := SetIn(home, "ledger", "keep_days", -3); err == nil || !strings.Contains(err.Error(), "ledger.keep_days") {
		t.Fatalf("keep_days = -3 was written: %v", err)
	}
}
