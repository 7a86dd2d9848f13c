package bench

import (
	"encoding/json"
	"fmt"
	"os"
)

// SaveReport writes rep's measurements to path as JSON, so the report can be rendered again
// (LoadReport, memhost-bench -render) when its text changes: a whole run takes an hour on two
// cores and should be taken once, on a quiet machine.
func SaveReport(path string, rep Report) error {
	data, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return fmt.Errorf("save the measurements: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("save the measurements: %w", err)
	}
	return nil
}

// LoadReport reads measurements SaveReport wrote.
func LoadReport(path string) (Report, error) {
	var rep Report
	data, err := os.ReadFile(path)
	if err != nil {
		return rep, fmt.Errorf("read saved measurements: %w", err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return rep, fmt.Errorf("read saved measurements from %s: %w", path, err)
	}
	return rep, nil
}
