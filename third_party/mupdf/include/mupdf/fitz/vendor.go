//go:build required

package vendor
