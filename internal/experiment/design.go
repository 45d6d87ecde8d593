package experiment

import "errors"

// Design is how an experiment's variants are made from its template: the
// --vary settings with at most one of the designs that combine them, or
// an experiment file's variants.
type Design struct {
	// Varies are the settings, each 'NAME=V1|V2|...' (ParseVary).
	Varies []string
	// AllAtOnce adds a variant with every setting at its last value
	// (Variants); Factorial makes one for every combination (Factorial);
	// Together moves every setting at once (Together). Without any, each
	// changed value is a variant against the baseline.
	AllAtOnce, Factorial, Together bool
	// File, when set, gives the variants instead (File.RenderVariants).
	File *File
	// Command says the template is a server's command line with {NAME}
	// placeholders, not an nginx.conf.
	Command bool
}

// Variants renders the design's variants of template.
func (d Design) Variants(src []byte) ([]Variant, error) {
	template := Template{Src: src, Command: d.Command}
	var varies []Vary
	for _, s := range d.Varies {
		v, err := ParseVary(s)
		if err != nil {
			return nil, err
		}
		varies = append(varies, v)
	}
	switch {
	case d.File != nil:
		return d.File.RenderVariants(template)
	case d.Factorial && d.AllAtOnce || d.Together && (d.Factorial || d.AllAtOnce):
		return nil, errors.New("choose one of --all-at-once, --factorial and --together")
	case d.Together:
		return Together(template, varies)
	case d.Factorial:
		return Factorial(template, varies)
	}
	return Variants(template, varies, d.AllAtOnce)
}
