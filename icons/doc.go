// Package icons owns the rules for an agent's icon.svg: a small, safe,
// theme-following SVG. Check parses the icon as real XML (never with
// regular expressions over the whole file) and reports every problem at
// once, each with a 1-based line and column counted in characters, so a
// maintainer can fix an icon in one pass.
//
// The safety rules (icon-xml, icon-unsafe, icon-too-large) are the walk of
// internal/svgsafe, which acp's icon cache asks alone; its documentation
// lists what they refuse beyond the registry's list. This package adds the
// registry's style on that walk, through its Rules hooks.
//
// Decisions the registry rules leave open, taken here:
//   - Paint references such as fill="url(#gradient)" count as hard-coded
//     colours: a gradient or pattern cannot follow the editor's theme, and
//     the registry's CI rejects them too.
//   - An icon over MaxSize gets icon-too-large and nothing else.
//   - Width/height decide the size when both are usable (px ignored),
//     else the viewBox. Not square and not 16×16 are separate rules, so a
//     16×32 icon breaks both. A square icon whose viewBox is not square is
//     only the warning icon-viewbox-not-square: the drawing is
//     letterboxed, not distorted, and the public registry ships such icons.
//   - icon-hardcoded-color also covers colours set by <set>/<animate>, and
//     the properties that paint past fill and stroke (color, stop-color,
//     flood-color, lighting-color).
//   - icon-comment is reported wherever "<!--" appears, even inside CDATA:
//     MDX chokes on the sequence itself.
//   - Names are compared case-insensitively (FILL), because icons are also
//     embedded in HTML/MDX, where names are folded to lower case.
package icons
