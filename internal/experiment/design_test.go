package experiment

import "testing"

// TestDesign checks that each design makes the variants of its function
// and that two designs at once are refused.
func TestDesign(t *testing.T) {
	varies := []string{"ssl_session_tickets=off|on", "gzip=off|on"}
	for _, tt := range []struct {
		d    Design
		want int
	}{
		{Design{Varies: varies}, 3},
		{Design{Varies: varies, AllAtOnce: true}, 4},
		{Design{Varies: varies, Factorial: true}, 4},
		{Design{Varies: varies, Together: true}, 2},
	} {
		vs, err := tt.d.Variants([]byte(template))
		if err != nil || len(vs) != tt.want {
			t.Errorf("%+v.Variants() = %d variants, %v; want %d", tt.d, len(vs), err, tt.want)
		}
	}
	for _, d := range []Design{{Varies: varies, Factorial: true, AllAtOnce: true}, {Varies: varies, Together: true, Factorial: true}} {
		if _, err := d.Variants([]byte(template)); err == nil {
			t.Errorf("%+v.Variants() gave no error; want two designs refused", d)
		}
	}
	if _, err := (Design{Varies: []string{"novalues"}}).Variants([]byte(template)); err == nil {
		t.Error("Variants with --vary novalues gave no error")
	}
}
