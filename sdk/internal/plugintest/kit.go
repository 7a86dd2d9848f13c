package plugintest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/memhost/memhost/sdk/internal/pluginkind"
)

// Kit is what every kind's conformance kit holds: the implementation under test, what its
// Describe said (a valid Info) and the time bounds the checks hold it to. A kind's kit embeds
// it and adds its own checks.
type Kit[T pluginkind.Plugin[I], I pluginkind.Info] struct {
	Impl   T
	Info   I
	Limits Limits
}

// NewKit returns the kit of impl, failing t unless impl describes itself within l with a valid
// Info.
func NewKit[T pluginkind.Plugin[I], I pluginkind.Info](t testing.TB, impl T, l Limits) Kit[T, I] {
	t.Helper()
	k := Kit[T, I]{Impl: impl, Limits: l}
	k.Info = k.Describe(t)
	if err := k.Info.Validate(); err != nil {
		t.Fatalf("Describe returned invalid info: %v", err)
	}
	return k
}

// Describe calls the implementation's Describe within the kit's limits (see Describe).
func (k Kit[T, I]) Describe(t testing.TB) I {
	t.Helper()
	return Describe(t, k.Limits, k.Impl.Describe)
}

// CheckDescribe is every kind's DescribeIsSane check: the Info names a version (the Info's
// Version field, which each kind has) and Describe answers the same Info again.
func (k Kit[T, I]) CheckDescribe(t testing.TB, version string) {
	if version == "" {
		t.Fatalf("Describe: version is empty")
	}
	if again := k.Describe(t); !reflect.DeepEqual(again, k.Info) {
		t.Fatalf("Describe is not stable: first %s, then %s", Truncate(fmt.Sprintf("%+v", k.Info), MaxMessage/2), Truncate(fmt.Sprintf("%+v", again), MaxMessage/2))
	}
}

// CheckHealth is every kind's Health check (see the function CheckHealth).
func (k Kit[T, I]) CheckHealth(t testing.TB) {
	CheckHealth(t, k.Limits, k.Impl.Health)
}
