package schema

import "testing"

// A keyword that constrains values is enforced by generated code and checked in the defaults
// of tags: a row with one of the two columns has the other. Maps take no default, so their
// counts have code only.
func TestConstrainingKeywordsHaveCodeAndDefaultCheck(t *testing.T) {
	noDefault := map[string]bool{"minProperties": true, "maxProperties": true}
	for _, k := range keywords {
		switch {
		case k.check != nil && k.holds == nil && !noDefault[k.tag]:
			t.Errorf("keyword %s has validation code but no check of defaults (holds)", k.tag)
		case k.holds != nil && k.check == nil:
			t.Errorf("keyword %s checks defaults but generated code does not check it", k.tag)
		case k.check != nil && k.get == nil:
			t.Errorf("keyword %s is checked but written in no schema", k.tag)
		}
	}
}
