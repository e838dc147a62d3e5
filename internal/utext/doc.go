// Package utext converts between the offsets of one UTF-8 text: code point
// indexes (what the contract counts), UTF-16 code units (what JavaScript
// counts) and bytes (what Go slices). Every function takes valid UTF-8, as
// every decoded text is; building an index is linear in the text and a
// conversion costs O(log(len/64) + 64).
package utext
