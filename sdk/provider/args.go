package provider

import "strings"

// Arity is how many values a CLI option takes.
type Arity int

// Arities, as the option parsers of the CLIs (commander, clap, yargs) read them.
const (
	// Flag takes no value.
	Flag Arity = iota
	// One takes the next argument, whatever it is.
	One
	// Optional takes the next argument unless it starts with '-'.
	Optional
	// Many takes every next argument up to one starting with '-'.
	Many
)

// Options names a CLI's options that take values, each by every spelling
// ("-p", "--prompt"); an option not named takes none. It is what a Tasker
// needs to find the prompt among a CLI's arguments the way the CLI does.
type Options map[string]Arity

// Scanned is args as a CLI's parser reads them.
type Scanned struct {
	// Positional are the arguments no option took, in order ("--" ends the
	// options: every argument after it is positional).
	Positional []string
	// Values holds each option's values by the spelling given (for
	// --name=value, the name before '=').
	Values map[string][]string
}

// Scan reads args as a CLI's parser does, with o's arities: --name=value and
// -xVALUE (a short option that takes a value) carry their value, a cluster
// of short flags (-abc) takes none, "--" ends the options.
func (o Options) Scan(args []string) Scanned {
	s := Scanned{Values: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			s.Positional = append(s.Positional, args[i+1:]...)
			return s
		case len(a) < 2 || a[0] != '-':
			s.Positional = append(s.Positional, a)
			continue
		}
		if name, value, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "--") {
			s.Values[name] = append(s.Values[name], value)
			continue
		}
		if !strings.HasPrefix(a, "--") && len(a) > 2 {
			// -xVALUE for a short option that takes a value, else a cluster of flags.
			if o[a[:2]] != Flag {
				s.Values[a[:2]] = append(s.Values[a[:2]], a[2:])
			}
			continue
		}
		next := func() bool { return i+1 < len(args) }
		switch o[a] {
		case One:
			if next() {
				i++
				s.Values[a] = append(s.Values[a], args[i])
			}
		case Optional:
			if next() && !strings.HasPrefix(args[i+1], "-") {
				i++
				s.Values[a] = append(s.Values[a], args[i])
			}
		case Many:
			for next() && !strings.HasPrefix(args[i+1], "-") {
				i++
				s.Values[a] = append(s.Values[a], args[i])
			}
		}
	}
	return s
}

// Value is the last value given to the option under any of names, or "".
func (s Scanned) Value(names ...string) string {
	v := ""
	for _, n := range names {
		if vs := s.Values[n]; len(vs) > 0 {
			v = vs[len(vs)-1]
		}
	}
	return v
}
