// Package platform owns how this machine is named in the registry's terms:
// the binary target key (darwin|linux|windows × aarch64|x86_64), with the
// ACP_PLATFORM override and Rosetta detection, and the C library on Linux.
// It reads the running process only; it never downloads or installs.
package platform
