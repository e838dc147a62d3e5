// Package fold reads texts under the folds (white space, NFC, NFKC,
// typography, case) that the exact check tells apart, maps a folded
// reading back to the code points it came from, finds the smallest set of
// folds under which two texts read alike (Minimal), and reads a text as
// its skeleton, which proves a claim absent from a folding without
// folding the text. Folding is linear in the text.
package fold
