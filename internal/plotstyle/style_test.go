package plotstyle

import (
	"fmt"
	"image/color"
	"math"
	"testing"
)

// linear converts an sRGB component to linear light.
func linear(c uint8) float64 {
	v := float64(c) / 255
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

// gamma converts linear light back to an sRGB component in [0, 1].
func gamma(v float64) float64 {
	v = math.Min(1, math.Max(0, v))
	if v <= 0.0031308 {
		return 12.92 * v
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

// Matrices (linear RGB) simulating dichromat vision, after Viénot,
// Brettel and Mollon (1999).
var visions = map[string][3][3]float64{
	"normal":       {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
	"protanopia":   {{0.11238, 0.88762, 0}, {0.11238, 0.88762, 0}, {0.00401, -0.00401, 1}},
	"deuteranopia": {{0.29275, 0.70725, 0}, {0.29275, 0.70725, 0}, {-0.02234, 0.02234, 1}},
}

// seen returns c as a viewer with vision m sees it, in sRGB [0, 1].
func seen(c color.NRGBA, m [3][3]float64) [3]float64 {
	in := [3]float64{linear(c.R), linear(c.G), linear(c.B)}
	var out [3]float64
	for i := range out {
		out[i] = gamma(m[i][0]*in[0] + m[i][1]*in[1] + m[i][2]*in[2])
	}
	return out
}

// TestPaletteDistinct checks that every two colours of the palette stay
// apart for normal vision and for the two common red-green colour
// blindnesses: a red and a green, which deuteranopes confuse, would fail.
func TestPaletteDistinct(t *testing.T) {
	const least = 0.12 // distance in sRGB [0, 1]³
	if len(Palette) < 8 {
		t.Fatalf("palette of %d colours, want 8", len(Palette))
	}
	for name, m := range visions {
		for i := range Palette {
			for j := i + 1; j < len(Palette); j++ {
				a, b := seen(Palette[i], m), seen(Palette[j], m)
				d := math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
				if d < least {
					t.Errorf("%s: colours %d %v and %d %v are %.3f apart, want %.2f", name, i, Palette[i], j, Palette[j], d, least)
				}
			}
		}
	}
	// The check can fail: pure red and green look alike to deuteranopes.
	red, green := seen(color.NRGBA{0xCC, 0x33, 0x11, 0xFF}, visions["deuteranopia"]), seen(color.NRGBA{0x66, 0x88, 0x00, 0xFF}, visions["deuteranopia"])
	if d := math.Hypot(math.Hypot(red[0]-green[0], red[1]-green[1]), red[2]-green[2]); d >= least {
		t.Errorf("the simulation tells red from green for deuteranopes (%.3f apart): it checks nothing", d)
	}
}

// TestSeriesStylesDistinct checks that the first 24 series differ in
// colour, marker or dashes, and the first 8 in colour and in marker.
func TestSeriesStylesDistinct(t *testing.T) {
	seenStyle := map[string]int{}
	for i := range 24 {
		st := SeriesStyle(i)
		key := fmt.Sprintf("%v %T %v", st.Color, st.Shape, st.Dashes)
		if j, ok := seenStyle[key]; ok {
			t.Errorf("series %d looks like series %d: %s", i, j, key)
		}
		seenStyle[key] = i
	}
	for i := range 8 {
		for j := i + 1; j < 8; j++ {
			a, b := SeriesStyle(i), SeriesStyle(j)
			if a.Color == b.Color || fmt.Sprintf("%T", a.Shape) == fmt.Sprintf("%T", b.Shape) {
				t.Errorf("series %d and %d share a colour or a marker", i, j)
			}
		}
	}
	if a, b := SeriesStyle(-1), SeriesStyle(0); a.Color != b.Color || a.Shape != b.Shape || a.Dashes != nil {
		t.Error("a negative index does not fall back to the first style")
	}
}
