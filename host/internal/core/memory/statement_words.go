package memory

import (
	"slices"
	"strings"
	"sync"

	"github.com/memhost/memhost/sdk/tokenize"
)

// This file holds the word lists the statement check reads a body with.

// termSet is the set of tokenize terms of words, so the lists below stay right if the
// stemmer's output changes.
func termSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, t := range tokenize.Terms(words) {
		m[t] = true
	}
	return m
}

// negationTerms mark a negated body. Stopwords ("do", "is") are gone by then and the
// apostrophe is elided, so "do not", "don't" and "never" all leave a term from this list.
var negationTerms = termSet(`not no never none nothing nobody neither nor without cannot
	dont doesnt didnt isnt arent wasnt werent wont wouldnt shouldnt mustnt couldnt cant hasnt havent
	avoid avoids avoided instead rather`)

// reversalTerms mark a body that undoes or refuses what it names ("stop using X", "remove X",
// "X is disabled"): one word that turns "use X" into its opposite. statementOf adds "off" at
// the end of a clause and "out of".
var reversalTerms = termSet(`stop stops stopped remove removes removed delete deletes deleted
	disable disables disabled forbid forbids forbidden`)

// lightTerms are words that restate a fact without changing it ("we use pnpm in this repo",
// "FYI, ..."), so one body may have them and the other not.
var lightTerms = termSet(`use uses used using here repo repository project codebase please always suite
	really actually currently fyi heads up reminder just know so`)

// numberWords are the numbers notes spell out, read as the digits they stand for.
var numberWords = map[string]string{"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
	"six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
	"thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18",
	"nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
	"eighty": "80", "ninety": "90", "hundred": "100", "thousand": "1000"}

// irregularStems maps the stemmed past forms of irregular verbs to their base's stem. Forms that
// are also common nouns or directions ("left", "ground", "bound", "lay") are left out.
var irregularStems = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(`begin began begun|bend bent|bite bit bitten|blow blew blown
		|break broke broken|bring brought|build built|buy bought|catch caught|choose chose chosen
		|come came|deal dealt|dig dug|draw drew drawn|drive drove driven|eat ate eaten|fall fallen
		|feed fed|feel felt|fight fought|find found|fly flew flown|forget forgot forgotten
		|freeze froze frozen|get got gotten|give gave given|go went gone|grow grew grown|hang hung
		|hear heard|hide hid hidden|hold held|keep kept|know knew known|lead led|lend lent|lose lost
		|make made|mean meant|meet met|pay paid|rebuild rebuilt|rewrite rewrote rewritten|ride rode ridden
		|run ran|say said|see saw seen|seek sought|sell sold|send sent|shake shook shaken|show shown
		|shrink shrank shrunk|sing sang sung|sink sank sunk|sit sat|sleep slept|speak spoke spoken
		|spend spent|spin spun|stand stood|steal stole stolen|stick stuck|strike struck|swim swam swum
		|take took taken|teach taught|tear tore torn|tell told|think thought|throw threw thrown
		|understand understood|wake woke woken|wear wore worn|win won|write wrote written
		|override overrode overridden|undo undid undone|withdraw withdrew withdrawn`, "|") {
		forms := strings.Fields(line)
		base := tokenize.Terms(forms[0])[0]
		for _, f := range forms[1:] {
			if t := tokenize.Terms(f); len(t) == 1 && t[0] != base {
				m[t[0]] = base
			}
		}
	}
	return m
})

// synonymGroups are words that say the same thing in the notes agents write about a project,
// so a restatement may swap one for another: "Vault keeps our secrets" / "Vault stores our
// secrets". A word may belong to several groups; two words are synonyms when they share one.
// Only words that keep a statement's sense whatever they link belong here: never opposites,
// never names of things a statement is about (services, tools, environments), and no verb
// that merely relates the same things differently ("reads" / "writes", "owns" / "uses").
var synonymGroups = []string{
	// Verbs.
	"run execute invoke launch",
	"build compile generate produce create make",
	"store keep hold save persist retain",
	"live reside sit",
	"contain include carry hold",
	"own belong",
	"need require necessary mandatory",
	"send deliver dispatch emit publish",
	"receive obtain",
	"start begin trigger launch initiate kick",
	"finish complete end",
	"check verify validate confirm",
	"show display render present",
	"call name",
	"drop purge erase wipe",
	"fix repair resolve patch",
	"choose pick select",
	"allow permit let",
	"connect link",
	"fail break",
	"like enjoy love",
	"want wish like",
	"try attempt",
	"set configure define specify",
	"read load",
	"serve host expose",
	"listen bind",
	"cap limit",
	"reject refuse decline",
	"increase raise bump",
	"decrease lower reduce",
	"update refresh",
	"deploy ship release",
	"log record",
	"track monitor watch",
	"expire lapse",
	"write author compose",
	"mock stub fake",
	"skip ignore omit bypass",
	"merge combine",
	"handle process",
	"move migrate relocate transfer",
	"copy duplicate clone",
	"return respond reply answer",
	"fetch retrieve",
	"compute calculate",
	"describe document explain",
	"protect guard secure",
	"mask redact",
	"talk speak chat",
	"buy purchase",
	// Adjectives, adverbs and quantifiers.
	"every each all",
	"1 single",
	"big large huge",
	"small little tiny",
	"fast quick rapid quickly",
	"new fresh recent",
	"full whole entire complete",
	"correct right proper",
	"wrong incorrect",
	"hard difficult tough",
	"easy simple straightforward",
	"flaky unreliable intermittent",
	"usually normally typically generally",
	"often frequently",
	"happy glad",
	"scared afraid frightened",
	"nervous anxious worried",
	"tired exhausted",
	// Nouns and their short forms.
	"bug defect",
	"issue problem",
	"job task",
	"picture photo image",
	"docs documentation doc",
	"config configuration settings",
	"db database",
	"env environment",
	"app application",
	"dir directory folder",
	"deps dependencies",
	"auth authentication",
	"prod production",
	"dev development",
	"spec specification",
	"admin administrator",
	"ui interface",
	"msg message",
	"err error",
	"pkg package",
	"lib library",
	"max maximum",
	"min minimum",
	"congrats congratulations",
}

// synonymOf maps a term to the groups it belongs to.
var synonymOf = sync.OnceValue(func() map[string][]int {
	m := map[string][]int{}
	for g, line := range synonymGroups {
		for _, w := range strings.Fields(line) {
			if t := tokenize.Terms(w); len(t) == 1 {
				m[t[0]] = append(m[t[0]], g)
			}
		}
	}
	return m
})

// synonyms reports whether two terms share a synonym group.
func synonyms(a, b string) bool {
	for _, g := range synonymOf()[a] {
		if slices.Contains(synonymOf()[b], g) {
			return true
		}
	}
	return false
}
