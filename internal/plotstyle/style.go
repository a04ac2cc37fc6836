// Package plotstyle draws the project's plots in one style: a
// colour-blind-safe palette (Okabe and Ito's eight colours) with a
// distinct marker and dash pattern per series, the legend in a column
// beside the data rather than on it, tick marks with several readable
// labels (byte sizes as "1 KiB", "1 MiB"), reference values as labelled
// horizontal lines, and every figure saved as SVG with a PNG beside it for
// viewers that do not show SVG.
package plotstyle

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette holds Okabe and Ito's colour-blind-safe colours, ordered so that
// the first few series, the most common, differ the most; yellow, faint
// on white, comes last.
var Palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
}

// Shapes are the markers of the series, one per palette colour, so that
// series stay apart in grey print too.
var Shapes = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.BoxGlyph{},
	draw.PyramidGlyph{},
	draw.CrossGlyph{},
	draw.RingGlyph{},
	draw.SquareGlyph{},
	draw.PlusGlyph{},
	draw.TriangleGlyph{},
}

// dashes are the line patterns: solid for the first len(Palette) series,
// then dashed ones, so that series past the palette's end still differ.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(2)},
	{vg.Points(2), vg.Points(2)},
}

// Style is how the series of a given index is drawn.
type Style struct {
	Color  color.NRGBA
	Shape  draw.GlyphDrawer
	Dashes []vg.Length
}

// SeriesStyle returns the style of the i-th series (from 0): colour and
// marker walk the palette and the shapes together; each new round of the
// palette takes the next dash pattern and shifts the markers by one, so
// that no two of the first 24 series look alike.
func SeriesStyle(i int) Style {
	if i < 0 {
		i = 0
	}
	n := len(Palette)
	return Style{
		Color:  Palette[i%n],
		Shape:  Shapes[(i+i/n)%len(Shapes)],
		Dashes: dashes[(i/n)%len(dashes)],
	}
}
