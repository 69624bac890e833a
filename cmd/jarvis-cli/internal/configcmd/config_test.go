package configcmd

import (
	"reflect"
	"testing"
)

func TestParseValue(t *testing.T) {
	cases := map[string]any{
		"true":         true,
		"false":        false,
		"30":           30,
		"hello world":  "hello world",
		`["a", "b"]`:   []string{"a", "b"},
		"['x']":        []string{"x"},
		"[]":           []string{},
		"qwen3-vl:30b": "qwen3-vl:30b",
	}
	for in, want := range cases {
		got, err := ParseValue(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseValue(%q) = %#v, %v; want %#v", in, got, err, want)
		}
	}
}
