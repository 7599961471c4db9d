// Package site writes the registry's catalog: a static web site of the
// main index (index.html with one card per agent, search and filters; a
// page per agent with its install and launch commands, its preview
// channel and, given a protocol-matrix snapshot, its probe results).
//
// The catalog is made from exactly what `acp-registry build` would
// publish: the tree is validated by the same validator, the index is
// build's rendering of it (variants.json's exclusions and patches
// applied), and the icons are the bytes that validation accepted. Every
// manifest string reaches the pages through html/template, and icons are
// separate files shown with <img>, never inlined, so neither can run
// script. Pages load nothing from outside the folder and link relatively,
// so the folder works from file:// and from any static host; the same
// input gives the same bytes, and the folder is replaced as a whole
// (build.WriteDir).
package site
