package analysis

import "testing"

// A bug that happened is an error whether the run showed it or a replay confirmed a
// prediction; a prediction, and an actual hazard that is not a failure, is a warning.
func TestSeverityOf(t *testing.T) {
	for _, c := range []struct {
		kind string
		conf Confidence
		want Severity
	}{
		{"send-on-closed", Actual, SeverityError},
		{"send-on-closed", Confirmed, SeverityError},
		{"send-on-closed", Predicted, SeverityWarning},
		{"concurrent-recv", Actual, SeverityWarning},
		{"cyclic-deadlock", Confirmed, SeverityError},
	} {
		if got := SeverityOf(c.kind, c.conf); got != c.want {
			t.Errorf("SeverityOf(%s, %s) = %s, want %s", c.kind, c.conf, got, c.want)
		}
	}
}
