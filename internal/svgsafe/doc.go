// Package svgsafe reads an SVG icon as real XML and reports what makes it
// unsafe or unreadable for whoever shows it: an editor's list of agents, a
// webview, a documentation site. It is the walk under the registry's icon
// rules (package icons adds the style rules, size and colour, through
// Rules) and all that acp's icon cache asks of an icon: an editor needs an
// icon to be safe, not to follow the registry's style.
//
// What it refuses, beyond what encoding/xml already does:
//   - An icon over MaxSize gets icon-too-large and nothing else: the rest of
//     it is not parsed, so a hostile file costs nothing.
//   - Any DOCTYPE or entity declaration is icon-unsafe (no real icon needs
//     one; they are how entity bombs and external DTD fetches start), and
//     entities other than XML's five are icon-xml.
//   - icon-unsafe: elements that run code or load (<script>,
//     <foreignObject>, <iframe>, <embed>, <object>, <handler>, HTML that
//     loads media or navigates), on… event attributes, attributes that load
//     (src, action…), href and url(...) leaving the document,
//     <?xml-stylesheet?>, CSS @import, image-set() strings, backslash
//     escapes in CSS (which could hide those), <set>/<animate> that would
//     set href to something outside the icon, and references to the
//     icon's own elements (<use>, url(#id) in any property, what an
//     animation sets) that loop or make more than MaxCopies copies (a
//     reference bomb), and filters that cost far more than the icon: a
//     region over 4 times it, a CSS blur() or drop-shadow() over 64px.
//   - icon-xml: what browsers refuse to render though encoding/xml lets it
//     through: a repeated attribute, an undeclared namespace prefix
//     (xlink:href without xmlns:xlink), a root that is not <svg> in the SVG
//     namespace (served as an image, an <svg> without xmlns renders as
//     nothing), a second root, text outside it, nesting over 256 levels, an
//     encoding other than UTF-8.
//   - Element and attribute names are compared case-insensitively where it
//     matters for safety (<SCRIPT>, ONLOAD), because icons are also
//     embedded in HTML/MDX, where names are folded to lower case.
//   - A UTF-8 byte order mark is skipped and takes no column, as in editors.
//
// Every problem has a 1-based line and a column counted in characters, and
// every untrusted string in a message is escaped and cut short.
package svgsafe
