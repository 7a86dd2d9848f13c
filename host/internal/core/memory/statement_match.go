package memory

// This file holds how the words of two statement bodies are matched: exactly, up to a typo, a
// synonym or a compound written apart.

// wordsMatch reports whether every word of x is in y as often, up to a typo, a synonym or a
// compound written apart ("timeout" / "time out"), with y adding at most maxAddedWords plain
// words (specifics it adds are a refinement, which Distinct bounds).
func wordsMatch(x, y statement) bool {
	var missing, spare []termUse
	for t, w := range x.words {
		for range w.n - y.count(t) {
			missing = append(missing, termUse{t, w.surface})
		}
	}
	for t, w := range y.words {
		for range w.n - x.count(t) {
			spare = append(spare, termUse{t, w.surface})
		}
	}
	paired, used := pairCompounds(missing, spare)
	if !pairAll(missing, paired, spare, used) {
		return false
	}
	added := 0
	for j, s := range spare {
		if !used[j] && !isSpecific(s.surface) {
			added++
		}
	}
	return added <= maxAddedWords
}

// pairAll pairs every missing word not yet paired with a spare one not yet used that it is a
// typo or a synonym of, marking the spare words it uses; it reports whether all found one. It
// searches all pairings (the lists are a few words long), so a synonym never takes the word a
// typo needed.
func pairAll(missing []termUse, paired []bool, spare []termUse, used []bool) bool {
	owner := make([]int, len(spare)) // spare index -> missing index + 1, 0 when free
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j, s := range spare {
			if used[j] || seen[j] || !(typoOf(missing[i].surface, s.surface) || synonyms(missing[i].term, s.term)) {
				continue
			}
			seen[j] = true
			if owner[j] == 0 || try(owner[j]-1, seen) {
				owner[j] = i + 1
				return true
			}
		}
		return false
	}
	for i := range missing {
		if !paired[i] && !try(i, make([]bool, len(spare))) {
			return false
		}
	}
	for j := range spare {
		used[j] = used[j] || owner[j] != 0
	}
	return true
}

// termUse is one use of a term and the word it came from.
type termUse struct{ term, surface string }

// pairCompounds marks the words of either list that another two of the other list spell
// together ("timeout" and "time" + "out", "backup" and "back" + "up").
func pairCompounds(missing, spare []termUse) (pairedMissing, pairedSpare []bool) {
	pairedMissing, pairedSpare = make([]bool, len(missing)), make([]bool, len(spare))
	join := func(one []termUse, oneDone []bool, two []termUse, twoDone []bool) {
		for i, w := range one {
			for j := range two {
				for k := range two {
					if !oneDone[i] && j != k && !twoDone[j] && !twoDone[k] && len(w.surface) >= 5 &&
						two[j].surface+two[k].surface == w.surface {
						oneDone[i], twoDone[j], twoDone[k] = true, true, true
					}
				}
			}
		}
	}
	join(missing, pairedMissing, spare, pairedSpare)
	join(spare, pairedSpare, missing, pairedMissing)
	return pairedMissing, pairedSpare
}

func (s statement) count(term string) int {
	if w := s.words[term]; w != nil {
		return w.n
	}
	return 0
}

// typoOf reports whether two plain words differ by one edit (a letter inserted, dropped,
// changed or two swapped), as a typo or a British and an American spelling do. Words shorter
// than five letters, and anything with a digit or connector, never match: "v1.2" and "v1.3",
// or "dev" and "qa", name different things.
func typoOf(a, b string) bool {
	if len(a) < 5 || len(b) < 5 || !plainWord(a) || !plainWord(b) {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		if i == len(a) || a[i+1:] == b[i+1:] {
			return true // one letter changed
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // two swapped
	}
	return a[i:] == b[i+1:] // one letter inserted
}

func plainWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}
