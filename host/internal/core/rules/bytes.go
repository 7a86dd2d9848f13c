package rules

import "fmt"

// HumanBytes is n in the largest binary unit that keeps it at least 1 ("512 B", "1.5 MiB"): how
// sizes are shown to people, by the CLI's tables and the console alike.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
