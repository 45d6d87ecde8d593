// Package experiment runs a server in several configuration variants and
// measures each in randomised blocks, so that the effect of one directive
// can be told from noise: every block runs every variant once, in a
// shuffled order, on a freshly started server (never a reload), after a
// check that the variant is live.
package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/httpslab/httpslab/internal/nginxconf"
)

// Vary is one directive and the values to try, the first the baseline's.
type Vary struct {
	Directive string
	Values    []string
}

// ParseVary reads 'NAME=V1|V2|...': at least two distinct values, each
// one or more nginx arguments. The first may be empty ('NAME=|V2'): the
// baseline then leaves the directive as the template has it, absent
// where the template does not set it (nginx's default).
func ParseVary(s string) (Vary, error) {
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t;{}#\"'") {
		return Vary{}, fmt.Errorf("--vary %q: want NAME=V1|V2, e.g. 'ssl_session_tickets=off|on'", s)
	}
	v := Vary{Directive: name}
	for i, val := range strings.Split(list, "|") {
		val = strings.TrimSpace(val)
		if val == "" && i == 0 {
			v.Values = append(v.Values, val)
			continue
		}
		if _, err := nginxconf.CheckValue(name, val); err != nil {
			return Vary{}, fmt.Errorf("--vary %q: %w", s, err)
		}
		if slices.Contains(v.Values, val) {
			return Vary{}, fmt.Errorf("--vary %q: value %q given twice", s, val)
		}
		v.Values = append(v.Values, val)
	}
	if len(v.Values) < 2 {
		return Vary{}, fmt.Errorf("--vary %q: want at least two values, the first the baseline's", s)
	}
	return v, nil
}

// Change is one directive set to one value; an empty Value leaves the
// directive as the template has it.
type Change struct {
	Directive string `json:"directive"`
	Value     string `json:"value"`
}

func (c Change) String() string {
	if c.Value == "" {
		return c.Directive + " as in the template"
	}
	return c.Directive + " " + c.Value
}

// Variant is one configuration to measure.
type Variant struct {
	// Name names the variant by what it changes ("ssl_session_tickets
	// on"); the baseline's by its values.
	Name     string
	Baseline bool
	// Changes are the directives this variant sets differently from the
	// baseline (none for the baseline itself).
	Changes []Change
	// Settings are all the values set in the template, baseline's included.
	Settings []Change
	// Config is the rendered configuration (an nginx.conf, or a command
	// line).
	Config []byte
	// Edits says, per setting, how many directives of the template it
	// changed (0 means it was added to the http block, -1 that the
	// setting left the template as it is), or how many placeholders of a
	// command it filled.
	Edits []int
}

// AsInTemplate is the Edits entry of a setting with an empty value: the
// template left as it is.
const AsInTemplate = -1

// Variants renders the baseline (every Vary at its first value) and one
// variant per further value of each Vary, the others at the baseline's;
// allAtOnce adds one variant with every Vary at its last value, as a
// study that changes everything together would.
func Variants(template Template, varies []Vary, allAtOnce bool) ([]Variant, error) {
	if len(varies) == 0 {
		return nil, fmt.Errorf("no --vary: nothing to compare")
	}
	seen := map[string]bool{}
	base := make([]Change, len(varies))
	for i, v := range varies {
		if seen[v.Directive] {
			return nil, fmt.Errorf("--vary %s given twice: give all its values in one --vary", v.Directive)
		}
		seen[v.Directive] = true
		base[i] = Change{v.Directive, v.Values[0]}
	}
	specs := []Variant{{Name: baselineName(base), Baseline: true, Settings: base}}
	var all []Change
	for i, v := range varies {
		for _, val := range v.Values[1:] {
			s := slices.Clone(base)
			s[i].Value = val
			specs = append(specs, Variant{Name: s[i].String(), Changes: []Change{s[i]}, Settings: s})
		}
		all = append(all, Change{v.Directive, v.Values[len(v.Values)-1]})
	}
	if allAtOnce {
		if len(varies) < 2 {
			return nil, fmt.Errorf("--all-at-once needs two --vary or more")
		}
		specs = append(specs, Variant{Name: allAtOnceName(all), Changes: all, Settings: all})
	}
	for i := range specs {
		if err := specs[i].render(template); err != nil {
			return nil, err
		}
	}
	return specs, nil
}

// MaxVariants bounds a factorial design: every variant runs in every
// block, and Holm's correction grows with their number.
const MaxVariants = 64

// Factorial renders the baseline (every Vary at its first value) and a
// variant for every other combination of the values, named by the
// settings in which it differs from the baseline.
func Factorial(template Template, varies []Vary) ([]Variant, error) {
	specs, err := Variants(template, varies, false) // checks the varies and the template
	if err != nil {
		return nil, err
	}
	base := specs[0]
	count := 1
	for _, v := range varies {
		count *= len(v.Values)
		if count > MaxVariants {
			return nil, fmt.Errorf("--factorial: more than %d combinations", MaxVariants)
		}
	}
	out := []Variant{base}
	for n := 1; n < count; n++ {
		settings, changes := slices.Clone(base.Settings), []Change(nil)
		for i, k := 0, n; i < len(varies); i++ {
			settings[i].Value = varies[i].Values[k%len(varies[i].Values)]
			if k%len(varies[i].Values) != 0 {
				changes = append(changes, settings[i])
			}
			k /= len(varies[i].Values)
		}
		v := Variant{Name: joinChanges(changes), Changes: changes, Settings: settings}
		if err := v.render(template); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Together renders variants in which every Vary moves at once: variant i
// sets each directive to its i-th value, the first being the baseline, so
// that directives that only work together (ssl_certificate and
// ssl_certificate_key) change together. Every Vary must have as many
// values.
func Together(template Template, varies []Vary) ([]Variant, error) {
	specs, err := Variants(template, varies, false) // checks the varies and the template
	if err != nil {
		return nil, err
	}
	n := len(varies[0].Values)
	for _, v := range varies[1:] {
		if len(v.Values) != n {
			return nil, fmt.Errorf("--together: --vary %s has %d values, --vary %s %d: give each as many",
				varies[0].Directive, n, v.Directive, len(v.Values))
		}
	}
	out := []Variant{specs[0]}
	for i := 1; i < n; i++ {
		settings := slices.Clone(specs[0].Settings)
		for j, v := range varies {
			settings[j].Value = v.Values[i]
		}
		v := Variant{Name: joinChanges(settings), Changes: settings, Settings: settings}
		if err := v.render(template); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// baselineName names the baseline by the values it sets; one that sets
// none (every value empty) is the template itself.
func baselineName(base []Change) string {
	var set []Change
	for _, c := range base {
		if c.Value != "" {
			set = append(set, c)
		}
	}
	if len(set) == 0 {
		return "the template"
	}
	return joinChanges(set)
}

// maxNamedChanges is the most changes an all-at-once variant's name
// lists: a study that changes twenty directives together would otherwise
// give every line of the report a name of twenty settings (the JSON and
// the variants above it list them).
const maxNamedChanges = 4

func allAtOnceName(all []Change) string {
	if len(all) > maxNamedChanges {
		return fmt.Sprintf("all at once (%d directives)", len(all))
	}
	return "all at once (" + joinChanges(all) + ")"
}

func joinChanges(cs []Change) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, ", ")
}

// render applies the variant's settings to the template, one after the
// other, each on the result of the last.
func (v *Variant) render(template Template) error {
	src := template.Src
	for _, s := range v.Settings {
		out, n, err := template.set(src, s)
		if err != nil {
			return fmt.Errorf("variant %s: %w", v.Name, err)
		}
		src = out
		v.Edits = append(v.Edits, n)
	}
	v.Config = src
	return nil
}
