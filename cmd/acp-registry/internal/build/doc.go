// Package build turns a validated registry tree into the files clients
// fetch: registry.json, registry-preview.json, one index per variant of
// variants.json (see validate.Variants), <id>.svg icons and the JSON Schemas. Output is a pure
// function of the input (sorted by id, the manifest's field order, no map
// iteration order leaking through), and the output folder is replaced as a
// whole by a rename so readers never see half a build.
//
// registry.json holds exactly the fields of registry.Manifest: unknown
// top-level manifest fields (validate warns about them) are dropped, so the
// index always satisfies registry.schema.json.
package build
