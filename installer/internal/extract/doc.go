// Package extract owns turning a downloaded file into files on disk,
// safely: telling formats apart by their content (zip, tar, tar.gz,
// tar.bz2, one compressed file, a raw executable; refused formats named),
// refusing what a URL's name contradicts (an HTML error page saved as a
// .tar.gz), and extracting within the destination only: no "..", absolute
// paths, links out, device files, Windows-unsafe names, or more bytes and
// entries than Limits allow. It knows nothing of manifests or the store.
package extract
