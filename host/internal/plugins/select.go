package plugins

// OfKind returns the candidates of kind, in order. Each program runs the kinds it uses: the
// daemon its embedders, `memhost run` the one provider of the CLI it starts.
func OfKind(cands []Candidate, kind string) []Candidate {
	var out []Candidate
	for _, c := range cands {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}
