// Package icons owns the rules for an agent's icon.svg: a small, safe,
// theme-following SVG. Check parses the icon as real XML (never with
// regular expressions over the whole file) and reports every problem at
// once, each with a 1-based line and column counted in characters, so a
// maintainer can fix an icon in one pass.
//
// Decisions the registry rules leave open, taken here:
//   - Paint references such as fill="url(#gradient)" count as hard-coded
//     colours: a gradient or pattern cannot follow the editor's theme, and
//     the registry's CI rejects them too.
//   - An icon over MaxSize gets icon-too-large and nothing else: the rest of
//     it is not parsed, so a hostile file costs nothing.
//   - Width/height decide the size when both are usable (px ignored),
//     else the viewBox. Not square and not 16×16 are separate rules, so a
//     16×32 icon breaks both. A square icon whose viewBox is not square is
//     only the warning icon-viewbox-not-square: the drawing is
//     letterboxed, not distorted, and the public registry ships such icons.
//   - The root must be <svg> in the SVG namespace: served as an image, an
//     <svg> without xmlns renders as nothing. A UTF-8 byte order mark is
//     skipped and takes no column, as in editors.
//   - icon-unsafe also covers what an animation would set: <set>/<animate>
//     with attributeName href or xlink:href and a value not starting with
//     #, and image-set() strings that leave the icon.
//   - Any DOCTYPE or entity declaration is icon-unsafe (no real icon needs
//     one; they are how entity bombs and external DTD fetches start), and
//     entities other than XML's five are icon-xml.
//   - Beyond the registry's list, icon-xml also covers what encoding/xml
//     lets through but browsers refuse to render: a repeated attribute and
//     an undeclared namespace prefix (xlink:href without xmlns:xlink).
//   - Beyond the list, icon-unsafe also covers <iframe>, <embed>, <object>,
//     <handler>, <?xml-stylesheet?>, CSS @import and url(...) leaving the
//     document, and backslash escapes in CSS (which could hide those);
//     icon-hardcoded-color also covers colours set by <set>/<animate>.
//   - Element and attribute names are compared case-insensitively where it
//     matters for safety (<SCRIPT>, ONLOAD, FILL), because icons are also
//     embedded in HTML/MDX, where names are folded to lower case.
package icons
